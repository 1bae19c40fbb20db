/* The carrier accounting: one lock, the newest patch of the target, its telemetry fields. */
#include "rejit/rejit_carriers.h"

#include "rejit/patch_slots.h"

void aip_rejit_note_carrier(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            alvk_carrier_state state, uint32_t carrier)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_slots_newest(st, module_id, token);
    if (p != NULL) {
        p->telemetry.carrier_state = state;
        p->telemetry.carrier_token = carrier;
    }
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_count_caller(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            aip_caller_outcome outcome)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_slots_newest(st, module_id, token);
    if (p != NULL) {
        switch (outcome) {
        case AIP_CALLER_DISCOVERED:
            p->telemetry.callers_discovered++;
            p->telemetry.callers_redirected++;
            break;
        case AIP_CALLER_REDIRECTED:
            p->telemetry.callers_redirected++;
            break;
        default:
            p->telemetry.callers_kept++;
            break;
        }
    }
    aip_mutex_unlock(&st->lock);
}
