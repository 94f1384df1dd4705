/*
 * pcoll_f.c -- the C side of the Fortran module pcoll (fortran/pcoll.f90).
 *
 * The module's procedures call these functions through ISO_C_BINDING.  They
 * take what Fortran has: choice buffers as C descriptors (assumed-rank
 * `type(*), dimension(..)` dummies, ISO_Fortran_binding.h), handles as
 * MPI_Fint (the MPI_VAL of the mpi_f08 types, or the integer handles of
 * `use mpi`), which MPI_*_f2c turns into C handles (alltoallw's arrays of
 * type handles into arrays of C handles allocated for the call and freed
 * before it returns), and counts as MPI_Count.
 * Each calls the public C function of the same name (the int form while
 * every count fits an int, the large-count _c form otherwise) and returns its
 * status.  The all-to-all functions serve two collectives, as their first
 * argument nbr says: 0 the communicator's all-to-all (pcoll_alltoall ...),
 * 1 the neighbourhood all-to-all of its topology (pcoll_neighbor_alltoall
 * ...), whose public functions take the same arguments but for
 * alltoallw's displacements (MPI_Aint in every form, as in MPI).  Nothing
 * here reaches below include/pcoll.h.  The functions that
 * take arrays of counts are written once, in pcoll_f_counts.h, included at
 * the end once per kind of count (int and MPI_Count).
 */
#include <ISO_Fortran_binding.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>

#include "pcoll.h"

/* The address of a choice buffer, or MPI_IN_PLACE when the buffer is the
 * MPI's Fortran MPI_IN_PLACE (in_place: that variable's address, passed by
 * the module from the MPI module the caller's handles come from).  A buffer
 * that is not contiguous (an array section with strides) cannot be bound to
 * a plan: PCOLL_ERR_ARG. */
static int buffer(const CFI_cdesc_t *d, const void *in_place, void **out)
{
    if (in_place != NULL && d->base_addr == in_place) {
        *out = MPI_IN_PLACE;
        return PCOLL_SUCCESS;
    }
    if (d->base_addr != NULL && !CFI_is_contiguous(d))
        return PCOLL_ERR_ARG;
    *out = d->base_addr;
    return PCOLL_SUCCESS;
}

/* Both buffers of a call; in_place applies to the send buffer only. */
static int buffers(const CFI_cdesc_t *s, const void *in_place, const CFI_cdesc_t *r,
                   void **sbuf, void **rbuf)
{
    int rc = buffer(s, in_place, sbuf);
    return rc != PCOLL_SUCCESS ? rc : buffer(r, NULL, rbuf);
}

static int fits_int(MPI_Count a, MPI_Count b)
{
    return a >= INT_MIN && a <= INT_MAX && b >= INT_MIN && b <= INT_MAX;
}

/* ---- alltoall ----------------------------------------------------------------------- */

int pcoll_f_alltoall(const MPI_Fint *nbr, const CFI_cdesc_t *s, const void *in_place,
                     const MPI_Count *scount, const MPI_Fint *stype, const CFI_cdesc_t *r,
                     const MPI_Count *rcount, const MPI_Fint *rtype, const MPI_Fint *comm)
{
    void *sbuf, *rbuf;
    int rc = buffers(s, in_place, r, &sbuf, &rbuf);
    if (rc != PCOLL_SUCCESS)
        return rc;
    MPI_Datatype st = MPI_Type_f2c(*stype), rt = MPI_Type_f2c(*rtype);
    MPI_Comm c = MPI_Comm_f2c(*comm);
    if (fits_int(*scount, *rcount))
        return (*nbr ? pcoll_neighbor_alltoall : pcoll_alltoall)(sbuf, (int)*scount, st, rbuf,
                                                                 (int)*rcount, rt, c);
    return (*nbr ? pcoll_neighbor_alltoall_c : pcoll_alltoall_c)(sbuf, *scount, st, rbuf,
                                                                 *rcount, rt, c);
}

int pcoll_f_alltoall_init(const MPI_Fint *nbr, const CFI_cdesc_t *s, const void *in_place,
                          const MPI_Count *scount, const MPI_Fint *stype, const CFI_cdesc_t *r,
                          const MPI_Count *rcount, const MPI_Fint *rtype, const MPI_Fint *comm,
                          const MPI_Fint *info, pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    /* init is collective: a rank whose buffer is refused still joins the
     * agreement, with a count that it refuses, so that every rank returns
     * an error. */
    int bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS;
    MPI_Count sn = bad ? -1 : *scount, rn = bad ? -1 : *rcount;
    MPI_Datatype st = MPI_Type_f2c(*stype), rt = MPI_Type_f2c(*rtype);
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Info i = MPI_Info_f2c(*info);
    if (bad)
        sbuf = rbuf = r->base_addr;
    if (fits_int(sn, rn))
        return (*nbr ? pcoll_neighbor_alltoall_init : pcoll_alltoall_init)(
            sbuf, (int)sn, st, rbuf, (int)rn, rt, c, i, plan);
    return (*nbr ? pcoll_neighbor_alltoall_init_c : pcoll_alltoall_init_c)(sbuf, sn, st, rbuf, rn,
                                                                           rt, c, i, plan);
}

int pcoll_f_alltoall_multi_init(const CFI_cdesc_t *s, const void *in_place, const MPI_Fint *scount,
                                const MPI_Fint *stype, const CFI_cdesc_t *r,
                                const MPI_Fint *rcount, const MPI_Fint *rtype,
                                const MPI_Fint *comm_row, const MPI_Fint *comm_column,
                                const MPI_Fint *info, pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    int bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS;
    return pcoll_alltoall_multi_init(bad ? r->base_addr : sbuf, bad ? -1 : (int)*scount,
                                     MPI_Type_f2c(*stype), bad ? r->base_addr : rbuf,
                                     bad ? -1 : (int)*rcount, MPI_Type_f2c(*rtype),
                                     MPI_Comm_f2c(*comm_row), MPI_Comm_f2c(*comm_column),
                                     MPI_Info_f2c(*info), plan);
}

/* ---- alltoallv ---------------------------------------------------------------------- */

int pcoll_f_alltoallv_inplace_init(const MPI_Fint *nbr, const CFI_cdesc_t *b,
                                   const MPI_Fint scounts[], const MPI_Fint sdispls[],
                                   const MPI_Fint rcounts[], const MPI_Fint rdispls[],
                                   const MPI_Fint *type, const MPI_Fint *comm,
                                   const MPI_Fint *info, pcoll_plan_t **plan)
{
    void *buf;
    int bad = buffer(b, NULL, &buf) != PCOLL_SUCCESS;
    return (*nbr ? pcoll_neighbor_alltoallv_inplace_init : pcoll_alltoallv_inplace_init)(
        bad ? b->base_addr : buf, bad ? NULL : scounts, sdispls, rcounts, rdispls,
        MPI_Type_f2c(*type), MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), plan);
}

/* ---- alltoallw ---------------------------------------------------------------------- */

/* alltoallw's type arrays as C handles: MPI_Type_f2c of the Fortran handles
 * of each direction, one per block (p each, p the size of comm, its remote
 * group's for an intercommunicator; for the neighbourhood form, nbr, the
 * out-degree of comm's topology for the send types and its in-degree for
 * the receive types), in one allocation that the caller frees.  The send
 * types stay NULL when the send buffer is MPI_IN_PLACE (MPI ignores them
 * then); both stay NULL where MPI cannot tell the numbers (MPI not
 * initialized, comm not a communicator, no topology for nbr), for pcoll to
 * refuse the call. */
typedef struct {
    MPI_Datatype *all, *s, *r;
} w_types_t;

/* The out- and in-degree of comm's topology (the blocks to send and to
 * receive); 0 without a topology. */
static int degrees(MPI_Comm comm, int *nsend, int *nrecv)
{
    int topo = MPI_UNDEFINED, rank = 0, weighted;
    if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART && MPI_Cartdim_get(comm, nsend) == MPI_SUCCESS) {
        *nrecv = *nsend = 2 * *nsend;
        return 1;
    }
    if (topo == MPI_GRAPH && MPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
        MPI_Graph_neighbors_count(comm, rank, nsend) == MPI_SUCCESS) {
        *nrecv = *nsend;
        return 1;
    }
    return topo == MPI_DIST_GRAPH &&
           MPI_Dist_graph_neighbors_count(comm, nrecv, nsend, &weighted) == MPI_SUCCESS;
}

/* The blocks of each direction of an alltoallw on comm; 0 if MPI cannot
 * tell (see w_types). */
static int w_blocks(MPI_Comm comm, int nbr, int *nsend, int *nrecv)
{
    int init = 0, fini = 0, inter = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini || comm == MPI_COMM_NULL)
        return 0;
    if (nbr)
        return degrees(comm, nsend, nrecv);
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        (inter ? MPI_Comm_remote_size(comm, nsend) : MPI_Comm_size(comm, nsend)) != MPI_SUCCESS)
        return 0;
    *nrecv = *nsend;
    return 1;
}

static int w_types(const MPI_Fint *fcomm, int nbr, const void *sbuf, const MPI_Fint stypes[],
                   const MPI_Fint rtypes[], w_types_t *w)
{
    int ns = 0, nr = 0, i;
    w->all = w->s = w->r = NULL;
    if (!w_blocks(MPI_Comm_f2c(*fcomm), nbr, &ns, &nr))
        return PCOLL_SUCCESS;
    if (!(w->all = malloc(sizeof(MPI_Datatype) * (size_t)(ns + nr > 0 ? ns + nr : 1))))
        return PCOLL_ERR_NOMEM;
    w->r = w->all + ns;
    for (i = 0; i < nr; i++)
        w->r[i] = MPI_Type_f2c(rtypes[i]);
    if (sbuf != MPI_IN_PLACE) {
        w->s = w->all;
        for (i = 0; i < ns; i++)
            w->s[i] = MPI_Type_f2c(stypes[i]);
    }
    return PCOLL_SUCCESS;
}

/* ---- reduce_scatter ----------------------------------------------------------------- */

int pcoll_f_reduce_scatter_block(const CFI_cdesc_t *s, const void *in_place,
                                 const CFI_cdesc_t *r, const MPI_Count *rcount,
                                 const MPI_Fint *type, const MPI_Fint *op, const MPI_Fint *comm)
{
    void *sbuf, *rbuf;
    int rc = buffers(s, in_place, r, &sbuf, &rbuf);
    if (rc != PCOLL_SUCCESS)
        return rc;
    MPI_Datatype t = MPI_Type_f2c(*type);
    MPI_Op o = MPI_Op_f2c(*op);
    MPI_Comm c = MPI_Comm_f2c(*comm);
    if (fits_int(*rcount, 0))
        return pcoll_reduce_scatter_block(sbuf, rbuf, (int)*rcount, t, o, c);
    return pcoll_reduce_scatter_block_c(sbuf, rbuf, *rcount, t, o, c);
}

int pcoll_f_reduce_scatter_block_init(const CFI_cdesc_t *s, const void *in_place,
                                      const CFI_cdesc_t *r, const MPI_Count *rcount,
                                      const MPI_Fint *type, const MPI_Fint *op,
                                      const MPI_Fint *comm, const MPI_Fint *info,
                                      pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    int bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS;
    MPI_Count n = bad ? -1 : *rcount;
    MPI_Datatype t = MPI_Type_f2c(*type);
    MPI_Op o = MPI_Op_f2c(*op);
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Info i = MPI_Info_f2c(*info);
    if (bad)
        sbuf = rbuf = r->base_addr;
    if (fits_int(n, 0))
        return pcoll_reduce_scatter_block_init(sbuf, rbuf, (int)n, t, o, c, i, plan);
    return pcoll_reduce_scatter_block_init_c(sbuf, rbuf, n, t, o, c, i, plan);
}

/* ---- the functions that take count arrays, once per kind of count ------------------ */

#define F_NAME(name) name
#define F_COUNT MPI_Fint
#define F_DISPL MPI_Fint
#include "pcoll_f_counts.h"

#define F_NAME(name) name##_c
#define F_COUNT MPI_Count
#define F_DISPL MPI_Aint
#include "pcoll_f_counts.h"
