/* The owner decision: what a command leads to for a patch's owner set, computed from a copy of
 * the patch before anything is published or committed. A removal is decided before its
 * publish (the body it puts in force: the newest body of a remaining owner, or the original);
 * a command that puts an owner's body in force is decided after its publish (the owner's body
 * recorded, or, refused, the owner it added taken out, and the original restored when nobody
 * else holds the patch any more). Each decision says what follows a granted publish and what
 * follows a refused one; the worker publishes the body, then commits one of the two in one
 * RejitState transition (aip_rejit_commit). Pure: no lock, no runtime. */
#ifndef AIP_OWNER_DECISION_H
#define AIP_OWNER_DECISION_H

#include "rejit/patch_table.h"

typedef enum aip_owner_change {
    AIP_OWNER_KEEP = 0,  /* no owner change (a rollback) */
    AIP_OWNER_SET = 1,   /* the owner's body goes in force: install, replace, generation */
    AIP_OWNER_LEAVE = 2, /* the owner leaves: a removal */
} aip_owner_change;

/* A command's owner, as it was accepted. */
typedef struct aip_owner_command {
    aip_owner_change change;
    uint64_t owner;
    int added; /* the owner joined the patch when the command was accepted */
} aip_owner_command;

/* What the command leads to, on one side of its publish. */
typedef struct aip_owner_result {
    uint64_t drop_owner;    /* the owner that leaves the set (0: none) */
    uint64_t body_owner;    /* the owner whose body is now the published one (0: none) */
    alvk_patch_state state; /* the patch's state after the command */
    alvk_status status;     /* the command's result */
} aip_owner_result;

typedef struct aip_owner_decision {
    int publish;           /* a body must be put in force (else only `granted` applies) */
    int successor;         /* the owner slot whose body goes in force; -1: the original */
    alvk_generation_id id; /* that body's generation (0: the original) */
    int closes;            /* granted, nobody holds the patch: nobody may join meanwhile */
    aip_owner_result granted;
    aip_owner_result refused;
} aip_owner_decision;

/* The patch state a command ends with when it found the patch in `before` and ends with
 * `status`: a patch's first command makes it ACTIVE, FAILED (ALVK_E_REJIT_FAILED) or
 * REJECTED; any later command leaves the state as it is. */
alvk_patch_state aip_owner_end_state(alvk_patch_state before, alvk_status status);

/* `owner` leaves patch `p`: ALVK_E_PATCH_ENDED (ended meanwhile) or ALVK_E_NOT_OWNER with
 * nothing to publish; else the newest body another owner set (or the original when none
 * did) goes in force unless it already is; the last owner's leaving always publishes the
 * original and ends the patch REMOVED. Refused, nothing changes and the result is
 * ALVK_E_REJIT_FAILED. */
void aip_owner_decide_leave(const aip_patch *p, uint64_t owner, aip_owner_decision *d);

/* The end of a command that found the patch in `before` and whose body's publish ended with
 * `status` (`p` the patch now): granted, the owner's body recorded; refused, the owner it
 * added taken out, and, when that leaves nobody on a live patch, the original published and
 * the patch REMOVED (refused in turn: the owner stays). */
void aip_owner_decide_end(const aip_patch *p, alvk_patch_state before, const aip_owner_command *c,
                          alvk_status status, aip_owner_decision *d);

/* The side of `d` that applies: `refused` when a body was to be published and its publish
 * was refused, else `granted`. */
const aip_owner_result *aip_owner_result_of(const aip_owner_decision *d, int publish_granted);

#endif
