/*
 * Watches of the caller's datatype handle for user-defined ops (optype.h).
 */
#include "base/status.h"
#include "core/optype.h"

typedef struct watch {
    pcoll_plan_t *plan;
    MPI_Datatype user, own;
    MPI_Datatype *slot;
    int keyval;
    int attached; /* the attribute is on the caller's type */
    int closing;  /* the plan is being freed: nothing to point elsewhere */
} watch_t;

/* MPI destroys the caller's type (or the plan removes the attribute). */
static int type_gone(MPI_Datatype type, int keyval, void *value, void *extra)
{
    watch_t *w = extra;
    pcoll__sched_t *s = &w->plan->sched;
    int i;
    (void)type, (void)keyval, (void)value;
    w->attached = 0;
    if (w->closing)
        return MPI_SUCCESS;
    for (i = 0; i < s->nops; i++)
        if (s->ops[i].kind == PCOLL__OP_REDUCE && s->ops[i].stype == w->user)
            s->ops[i].stype = s->ops[i].dtype = w->own;
    if (w->slot)
        *w->slot = w->own;
    return MPI_SUCCESS;
}

/* At plan destruction: the attribute off the caller's type where MPI has not
 * destroyed it yet, then the keyval. */
static void watch_end(void *arg)
{
    watch_t *w = arg;
    w->closing = 1;
    if (w->attached)
        MPI_Type_delete_attr(w->user, w->keyval);
    MPI_Type_free_keyval(&w->keyval);
}

/* Whether plan watches user already. */
static int watched(const pcoll_plan_t *plan, MPI_Datatype user)
{
    int i;
    for (i = 0; i < plan->non_free; i++)
        if (plan->on_free[i].fn == watch_end && ((watch_t *)plan->on_free[i].arg)->user == user)
            return 1;
    return 0;
}

int pcoll__optype_watch(pcoll_plan_t *plan, MPI_Datatype user, MPI_Datatype own,
                        MPI_Datatype *slot)
{
    watch_t *w;
    int rc;
    if (watched(plan, user))
        return PCOLL_SUCCESS;
    if (!(w = pcoll__plan_alloc(plan, sizeof *w)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: datatype watch", plan->collective);
    *w = (watch_t){plan, user, own, slot, MPI_KEYVAL_INVALID, 0, 0};
    if (MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_gone, &w->keyval, w) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: datatype watch: MPI_Type_create_keyval",
                            plan->collective);
    if ((rc = pcoll__plan_on_free(plan, watch_end, w)) != PCOLL_SUCCESS)
        return rc;
    if (MPI_Type_set_attr(user, w->keyval, w) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: datatype watch: MPI_Type_set_attr",
                            plan->collective);
    w->attached = 1;
    return PCOLL_SUCCESS;
}
