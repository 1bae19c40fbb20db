/* Internal to generation validation: the checks of one relocation (step 4 of
 * aip_generation_validate in generation_validate.h), run in index order. */
#ifndef AIP_RELOCATION_VALIDATE_H
#define AIP_RELOCATION_VALIDATE_H

#include "alvorkit_interception_profiler.h"
#include "il/il_walk.h"

#include <stdint.h>

typedef struct aip_relocation_scope {
    const alvk_generation *generation; /* shape already checked */
    const uint8_t *code;               /* the walked code */
    uint32_t code_size;
    const aip_il_starts *starts; /* from the successful walk of code */
    uint8_t fat_header;          /* a LocalVarSigTok exists to relocate */
    /* Per relocation already checked: 1 when its blob is a method signature (MEMBER_REF
     * or STANDALONE_SIG). Lets a later METHOD_SPEC require a method MemberRef parent. */
    uint8_t method_sig[ALVK_MAX_RELOCATIONS];
    /* The operands relocations checked so far fill (il_offset and sites), one bit each: in
     * the code by operand offset, catch clauses by number, and the locals; a second claim of
     * one is an overlap. */
    uint8_t code_filled[AIP_IL_MAX_CODE_BYTES / 8];
    uint8_t catch_filled[(ALVK_MAX_CATCH_TYPE_CLAUSE + 7) / 8];
    uint8_t locals_filled;
} aip_relocation_scope;

/* Checks relocation `index` (< relocation_count), given that every earlier one passed
 * (scope zeroed before the first). Returns ALVK_OK or the status of the first failure, in
 * the order of step 4: il_offset first, then each site in order. */
alvk_status aip_generation_check_relocation(aip_relocation_scope *scope, uint32_t index);

#endif
