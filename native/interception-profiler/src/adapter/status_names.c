/* alvk_status_string and alvk_status_name, generated from the header's one status list. */
#include "alvorkit_interception_profiler.h"

#include "adapter/export.h"

ALVK_API const char *ALVK_CALL alvk_status_string(alvk_status status)
{
    switch (status) {
#define AIP_STATUS_CASE(name, value, description) \
    case name: \
        return #name ": " description;
        ALVK_STATUS_LIST(AIP_STATUS_CASE)
#undef AIP_STATUS_CASE
    default:
        return "ALVK_E_UNKNOWN_STATUS: not a status of this ABI version";
    }
}

ALVK_API const char *ALVK_CALL alvk_status_name(alvk_status status)
{
    switch (status) {
#define AIP_STATUS_NAME_CASE(name, value, description) \
    case name: \
        return #name;
        ALVK_STATUS_LIST(AIP_STATUS_NAME_CASE)
#undef AIP_STATUS_NAME_CASE
    default:
        return "ALVK_E_UNKNOWN_STATUS";
    }
}
