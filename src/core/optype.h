/*
 * The datatype handle a user-defined op receives.  MPI calls a user op with
 * the datatype handle the caller gave the collective; a plan keeps its own
 * duplicate of a derived type (pcoll__plan_keep_type) for its messages and
 * copies, and hands the op the caller's handle for as long as the caller's
 * type exists.
 *
 * MPI deletes a type's attributes when it destroys the type: at
 * MPI_Type_free, or later where something built from it (the plan's
 * duplicate, a persistent request) still holds it, in which case the
 * handle stays valid until then.  A watch -- an attribute, of a keyval of
 * its own, on the caller's type -- learns of it: its delete callback
 * points the plan's reductions (and a slot the plan names) at the plan's
 * duplicate, whose type map is the same.  The callback runs in the thread
 * that frees the type, so the type is freed while no run of the plan is in
 * progress in another thread (include/pcoll.h, "User ops").
 */
#ifndef PCOLL_CORE_OPTYPE_H
#define PCOLL_CORE_OPTYPE_H

#include "core/plan.h"

/* Watch the caller's type user for plan (once per plan and type: later calls
 * add nothing): when MPI destroys it, every reduction of plan's schedule on
 * user and *slot (when not NULL) become own.  The watch ends with the plan. */
int pcoll__optype_watch(pcoll_plan_t *plan, MPI_Datatype user, MPI_Datatype own,
                        MPI_Datatype *slot);

#endif
