/*
 * The node barriers around a gpu_ipc run (gpu.h): the first says every rank
 * of the node has started (its inputs written, its outputs free), the second
 * that the device work between them is complete everywhere.  Non-blocking,
 * so that pcoll_test makes progress and pcoll_wait may block in its loop.
 */
#include "base/status.h"
#include "base/pmpi.h"
#include "gpu/gpu.h"

int pcoll__gpu_bracket_start(pcoll__gpu_bracket_t *b, const char *what)
{
    b->phase = 0;
    if (MPI_Ibarrier(b->node, &b->bar) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Ibarrier", what);
    return PCOLL_SUCCESS;
}

int pcoll__gpu_bracket_test(pcoll__gpu_bracket_t *b, int (*work)(void *arg), void *arg,
                            const char *what, int *done)
{
    int flag = 0, rc;
    *done = 0;
    if (PCOLL__MPI(Test)(&b->bar, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: node barrier", what);
    if (!flag)
        return PCOLL_SUCCESS;
    if (b->phase == 1) {
        *done = 1;
        return PCOLL_SUCCESS;
    }
    if ((rc = work(arg)) != PCOLL_SUCCESS)
        return rc;
    b->phase = 1;
    if (MPI_Ibarrier(b->node, &b->bar) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Ibarrier", what);
    return PCOLL_SUCCESS;
}

int pcoll__gpu_ipc_verdict(pcoll_plan_t *plan, int rc, void (*destroy)(pcoll_plan_t *plan),
                           int (*staged)(pcoll_plan_t *plan, const void *args),
                           const void *args)
{
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s gpu_ipc: agreement", plan->collective);
    if (worst == PCOLL_ERR_UNSUPPORTED) {
        /* No IPC here (a memory pool's buffers, a sandbox without IPC), or
         * sizes past int counts: gpu_staged on every rank. */
        destroy(plan);
        plan->ops = &pcoll__sched_ops;
        plan->priv = NULL;
        return staged(plan, args);
    }
    if (worst != PCOLL_SUCCESS && rc == PCOLL_SUCCESS)
        rc = pcoll__error(worst, "%s gpu_ipc: init failed on another rank", plan->collective);
    return rc;
}
