/*
 * alltoallw: the descriptor and the public calls pcoll_alltoallw_init and
 * pcoll_alltoallw (and the drop-in's plans), through the entry path.
 *
 * alltoallw is alltoallv with a send and a receive type per peer and
 * displacements in bytes: the descriptor lends alltoallv's hooks
 * (api/alltoallv.c: checks of every peer's type, the agreement with every
 * pair's byte counts, the one-shot key with the type arrays, the plan's
 * copies of arrays and types) and has its own table and choice
 * (select/alltoallw.c).  A one-shot call whose types are more derived types
 * than the plan cache watches is planned on every call (entry.h).
 */
#include <stddef.h>

#include "api/api.h"
#include "api/entry.h"
#include "gpu/gpu.h"
#include "select/select.h"

/* Device buffers (on any rank of a persistent plan, agreed; a one-shot
 * call's on this rank) go to the MPI's own MPI_Alltoallw: pcoll has no
 * device-memory algorithm for alltoallw (docs/gpu.md). */
static int a2aw_choose(pcoll__call_t *c)
{
    pcoll__a2av_args_t *v = (pcoll__a2av_args_t *)(void *)c->args;
    pcoll__shape_t shape = pcoll__call_shape(c);
    int device = pcoll__gpu_is_device(v->a.recvbuf) ||
                 (!v->a.inplace && pcoll__gpu_is_device(v->a.sendbuf));
    if (c->ctx->remote)
        return pcoll__select_inter(&pcoll__alltoallw_table, v->a.opts.algorithm);
    if (c->mode == PCOLL__PERSISTENT && !c->opts.no_comm &&
        pcoll__gpu_agree(c->ctx->dup, device, &device) != PCOLL_SUCCESS)
        device = 1;
    if (device)
        return pcoll__algo_find(&pcoll__alltoallw_table, "native");
    return pcoll__select_alltoallw(v, &shape, &v->a.opts);
}

static const pcoll__coll_t alltoallw = {
    .name = "alltoallw",
    .table = &pcoll__alltoallw_table,
    .opts_offset = offsetof(pcoll__a2av_args_t, a.opts),
    .check = pcoll__a2av_check,
    .agree = pcoll__a2av_agree,
    .key = pcoll__a2av_key,
    .choose = a2aw_choose,
    .prepare = pcoll__a2av_prepare,
    .inter = PCOLL__INTER_REMOTE,
};

/* One call of any form: r holds its arrays (ints, or with r.wide the
 * large-count forms' MPI_Count / MPI_Aint ones) and types. */
static int run(pcoll__mode_t mode, const char *fn, pcoll__a2av_raw_t r, MPI_Comm comm,
               MPI_Info info, pcoll_plan_t **plan)
{
    r.sendtype = r.recvtype = MPI_DATATYPE_NULL;
    r.w = 1;
    return pcoll__entry(&alltoallw, mode, fn, &r, comm, info, plan);
}

#define INTS(neg)                                                                            \
    (pcoll__a2av_raw_t)                                                                      \
    {                                                                                        \
        .sendbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,  \
        .recvbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes,  \
        .negative_ok = (neg)                                                                 \
    }
#define WIDE(neg)                                                                            \
    (pcoll__a2av_raw_t)                                                                      \
    {                                                                                        \
        .sendbuf = sendbuf, .wscounts = sendcounts, .wsdispls = sdispls, .stypes = sendtypes, \
        .recvbuf = recvbuf, .wrcounts = recvcounts, .wrdispls = rdispls,                     \
        .rtypes = recvtypes, .negative_ok = (neg), .wide = 1                                 \
    }

int pcoll_alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                         const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Info info, pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_alltoallw_init", INTS(0), comm, info, plan);
}

int pcoll_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_alltoallw", INTS(0), comm, MPI_INFO_NULL, NULL);
}

int pcoll__alltoallw_dropin(pcoll__mode_t mode, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const int rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                            pcoll_plan_t **plan)
{
    return run(mode, "pcoll__alltoallw_dropin", INTS(1), comm, info, plan);
}

/* ---- large-count forms ------------------------------------------------------ */

int pcoll_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                           pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_alltoallw_init_c", WIDE(0), comm, info, plan);
}

int pcoll_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_alltoallw_c", WIDE(0), comm, MPI_INFO_NULL, NULL);
}

int pcoll__alltoallw_dropin_c(pcoll__mode_t mode, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                              pcoll_plan_t **plan)
{
    return run(mode, "pcoll__alltoallw_dropin_c", WIDE(1), comm, info, plan);
}
