/*
 * pcoll_f_counts.h -- the functions of fortran/pcoll_f.c that take arrays of
 * counts and displacements, written once: pcoll_f.c includes this file once
 * per kind of count, after defining
 *   F_NAME(name)  the function's name and the public one it calls: name (int
 *                 counts) or name_c (large counts)
 *   F_COUNT       the type of a count: MPI_Fint (int) or MPI_Count
 *   F_DISPL       the type of a displacement: MPI_Fint (int) or MPI_Aint
 * nbr selects the neighbourhood form (see pcoll_f.c), whose alltoallw
 * displacements are MPI_Aint in both kinds: alltoallw's displacement
 * arrays arrive untyped, as F_DISPL or MPI_Aint by nbr.
 * No include guard: it is meant to be included more than once.
 */

int F_NAME(pcoll_f_alltoallv)(const MPI_Fint *nbr, const CFI_cdesc_t *s, const void *in_place,
                              const F_COUNT scounts[], const F_DISPL sdispls[],
                              const MPI_Fint *stype, const CFI_cdesc_t *r,
                              const F_COUNT rcounts[], const F_DISPL rdispls[],
                              const MPI_Fint *rtype, const MPI_Fint *comm)
{
    void *sbuf, *rbuf;
    int rc = buffers(s, in_place, r, &sbuf, &rbuf);
    if (rc != PCOLL_SUCCESS)
        return rc;
    return (*nbr ? F_NAME(pcoll_neighbor_alltoallv) : F_NAME(pcoll_alltoallv))(
        sbuf, scounts, sdispls, MPI_Type_f2c(*stype), rbuf, rcounts, rdispls,
        MPI_Type_f2c(*rtype), MPI_Comm_f2c(*comm));
}

/* A rank whose buffer is refused (not contiguous) still joins init's
 * agreement, with NULL counts that it refuses too, so that every rank
 * returns an error instead of waiting for it. */
int F_NAME(pcoll_f_alltoallv_init)(const MPI_Fint *nbr, const CFI_cdesc_t *s,
                                   const void *in_place, const F_COUNT scounts[],
                                   const F_DISPL sdispls[], const MPI_Fint *stype,
                                   const CFI_cdesc_t *r, const F_COUNT rcounts[],
                                   const F_DISPL rdispls[], const MPI_Fint *rtype,
                                   const MPI_Fint *comm, const MPI_Fint *info,
                                   pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    int bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS;
    return (*nbr ? F_NAME(pcoll_neighbor_alltoallv_init) : F_NAME(pcoll_alltoallv_init))(
        bad ? r->base_addr : sbuf, bad ? NULL : scounts, sdispls, MPI_Type_f2c(*stype),
        bad ? r->base_addr : rbuf, rcounts, rdispls, MPI_Type_f2c(*rtype), MPI_Comm_f2c(*comm),
        MPI_Info_f2c(*info), plan);
}

int F_NAME(pcoll_f_alltoallw)(const MPI_Fint *nbr, const CFI_cdesc_t *s, const void *in_place,
                              const F_COUNT scounts[], const void *sdispls,
                              const MPI_Fint stypes[], const CFI_cdesc_t *r,
                              const F_COUNT rcounts[], const void *rdispls,
                              const MPI_Fint rtypes[], const MPI_Fint *comm)
{
    void *sbuf, *rbuf;
    w_types_t w;
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int rc = buffers(s, in_place, r, &sbuf, &rbuf);
    if (rc != PCOLL_SUCCESS ||
        (rc = w_types(comm, *nbr, sbuf, stypes, rtypes, &w)) != PCOLL_SUCCESS)
        return rc;
    if (*nbr)
        rc = F_NAME(pcoll_neighbor_alltoallw)(sbuf, scounts, sdispls, w.s, rbuf, rcounts, rdispls,
                                              w.r, c);
    else
        rc = F_NAME(pcoll_alltoallw)(sbuf, scounts, sdispls, w.s, rbuf, rcounts, rdispls, w.r, c);
    free(w.all);
    return rc;
}

/* A rank whose buffer is refused, or that could not allocate the type
 * arrays, still joins init's agreement, with NULL send counts and types
 * that it refuses too, so that every rank returns an error (PCOLL_ERR_ARG,
 * the worst code agreed) instead of waiting for it. */
int F_NAME(pcoll_f_alltoallw_init)(const MPI_Fint *nbr, const CFI_cdesc_t *s,
                                   const void *in_place, const F_COUNT scounts[],
                                   const void *sdispls, const MPI_Fint stypes[],
                                   const CFI_cdesc_t *r, const F_COUNT rcounts[],
                                   const void *rdispls, const MPI_Fint rtypes[],
                                   const MPI_Fint *comm, const MPI_Fint *info,
                                   pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    w_types_t w = {NULL, NULL, NULL};
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Info i = MPI_Info_f2c(*info);
    int rc, bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS ||
                  w_types(comm, *nbr, sbuf, stypes, rtypes, &w) != PCOLL_SUCCESS;
    const F_COUNT *sc = bad ? NULL : scounts;
    MPI_Datatype *st = bad ? NULL : w.s;
    if (bad)
        sbuf = rbuf = r->base_addr;
    if (*nbr)
        rc = F_NAME(pcoll_neighbor_alltoallw_init)(sbuf, sc, sdispls, st, rbuf, rcounts, rdispls,
                                                   w.r, c, i, plan);
    else
        rc = F_NAME(pcoll_alltoallw_init)(sbuf, sc, sdispls, st, rbuf, rcounts, rdispls, w.r, c,
                                          i, plan);
    free(w.all);
    return rc;
}

int F_NAME(pcoll_f_reduce_scatter)(const CFI_cdesc_t *s, const void *in_place,
                                   const CFI_cdesc_t *r, const F_COUNT rcounts[],
                                   const MPI_Fint *type, const MPI_Fint *op, const MPI_Fint *comm)
{
    void *sbuf, *rbuf;
    int rc = buffers(s, in_place, r, &sbuf, &rbuf);
    if (rc != PCOLL_SUCCESS)
        return rc;
    return F_NAME(pcoll_reduce_scatter)(sbuf, rbuf, rcounts, MPI_Type_f2c(*type),
                                        MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
}

int F_NAME(pcoll_f_reduce_scatter_init)(const CFI_cdesc_t *s, const void *in_place,
                                        const CFI_cdesc_t *r, const F_COUNT rcounts[],
                                        const MPI_Fint *type, const MPI_Fint *op,
                                        const MPI_Fint *comm, const MPI_Fint *info,
                                        pcoll_plan_t **plan)
{
    void *sbuf, *rbuf;
    int bad = buffers(s, in_place, r, &sbuf, &rbuf) != PCOLL_SUCCESS;
    return F_NAME(pcoll_reduce_scatter_init)(bad ? r->base_addr : sbuf,
                                             bad ? r->base_addr : rbuf, bad ? NULL : rcounts,
                                             MPI_Type_f2c(*type), MPI_Op_f2c(*op),
                                             MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), plan);
}

#undef F_NAME
#undef F_COUNT
#undef F_DISPL
