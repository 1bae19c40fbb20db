/* The abort rule of every batch: the first failure, the rest ALVK_E_BATCH_ABORTED. */
#include "rejit/batch_abort.h"

alvk_status aip_batch_abort(alvk_status *statuses, uint32_t count)
{
    alvk_status first = ALVK_OK;
    for (uint32_t i = 0; i < count && first == ALVK_OK; ++i)
        first = statuses[i];
    if (first != ALVK_OK)
        for (uint32_t i = 0; i < count; ++i)
            if (statuses[i] == ALVK_OK)
                statuses[i] = ALVK_E_BATCH_ABORTED;
    return first;
}

alvk_status aip_batch_refuse(alvk_status *statuses, uint32_t count, uint32_t at, alvk_status status)
{
    for (uint32_t i = 0; i < count; ++i)
        statuses[i] = i == at || at == count ? status : ALVK_OK;
    aip_batch_abort(statuses, count);
    return status;
}
