/*
 * alltoallv `padded_bruck`: pad every element to the largest one and run the
 * alltoall Bruck variant the cost model predicts fastest (v->pad_bruck, the
 * choice of src/select; the multicore paper's remark for very short messages: the padding costs less than the
 * p-1 start-ups of a direct exchange).
 *
 * Each block is copied into a slot of m basic items (m = the largest element
 * over all ranks, from the persistent init's reduction) of a padded send
 * buffer; the alltoall runs on the padded buffers; each received slot's real
 * part is copied out.  Needs both signatures to be made of one predefined
 * type.  Cost: that of the Bruck variant for blocks of m items, plus two
 * local copies of the data.  Scratch: 2 p m items (plus the variant's own).
 */
#include <limits.h>

#include "alltoall/bruck.h"
#include "alltoallv/alltoallv.h"
#include "base/status.h"

/* Copy every block into (out = 1) or out of (out = 0) its padded slot. */
static int copy_slots(pcoll_plan_t *plan, const pcoll__a2av_args_t *v, char *pad, MPI_Aint slot,
                      int out)
{
    const pcoll__a2a_args_t *a = &v->a;
    int j, rc = PCOLL_SUCCESS;
    /* Every count fits: a slot holds at most INT_MAX basic items (checked
     * by the builder before any copy). */
    for (j = 0; j < plan->size && rc == PCOLL_SUCCESS; j++) {
        char *s = pad + j * slot;
        if (out)
            rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, j), (int)a->scounts[j],
                                   a->sendtype, s, (int)(a->scounts[j] * v->sunit), v->basic);
        else
            rc = pcoll__sched_copy(&plan->sched, s, (int)(a->rcounts[j] * v->runit), v->basic,
                                   pcoll__a2a_rbuf(a, j), (int)a->rcounts[j], a->recvtype);
    }
    return rc;
}

int pcoll__alltoallv_padded_bruck(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    pcoll__a2a_args_t pad = {0};
    MPI_Aint lb, ext;
    MPI_Count bsize;
    int m, rc;
    char *mem;

    if (v->basic == MPI_DATATYPE_NULL || v->maxbytes < 0)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "padded_bruck: needs one predefined type in both signatures and "
                            "persistent planning (pcoll_alltoallv_init)");
    PCOLL_CHECK(pcoll__type_size(v->basic, &bsize), rc, out);
    PCOLL_CHECK(pcoll__type_extent(v->basic, &lb, &ext), rc, out);
    /* The slot is a count of basic items: an int (maxbytes is the same on
     * every rank, so all refuse alike). */
    if (v->maxbytes / bsize > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "padded_bruck: an element of %lld bytes is more than INT_MAX "
                            "items of its basic type",
                            v->maxbytes);
    m = (int)(v->maxbytes / bsize);
    if (!(mem = pcoll__plan_alloc(plan, 2 * (size_t)plan->size * (size_t)(m ? m : 1) * ext)))
        return pcoll__error(PCOLL_ERR_NOMEM, "padded_bruck: padded buffers");
    /* The padded problem, as an alltoall of m basic items per block. */
    pad.sendbuf = mem, pad.sendcount = m, pad.sendtype = v->basic;
    pad.recvbuf = mem + (MPI_Aint)plan->size * m * ext, pad.recvcount = m;
    pad.recvtype = v->basic, pad.sblock = pad.rblock = m * ext, pad.blockbytes = v->maxbytes;
    pad.opts = v->a.opts;
    PCOLL_CHECK(copy_slots(plan, v, mem, pad.sblock, 1), rc, out);
    if (m > 0)
        PCOLL_CHECK(v->pad_bruck(plan, &pad), rc, out);
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    rc = copy_slots(plan, v, pad.recvbuf, pad.rblock, 0);
out:
    return rc;
}
