/*
 * The table of known MPI defects (defects.h) and its lookup in
 * MPI_Get_library_version's text.
 */
#include <stdlib.h>
#include <string.h>

#include "core/defects.h"

/* A library (the text its version follows), the device it needs (NULL:
 * any), and the versions [from, before) that have the defect. */
typedef struct defect_row {
    const char *name;
    const char *library;
    const char *device;
    int from[3], before[3];
} defect_row_t;

static const defect_row_t rows[PCOLL__DEFECT_COUNT] = {
    /* Fixed by pmodels/mpich#6796 (ch4/ucx: alternative noncontig recv). */
    [PCOLL__DEFECT_UCX_SPLIT_UNPACK] = {"mpich-ucx-split-unpack", "MPICH Version:", "ch4:ucx",
                                        {0, 0, 0}, {4, 2, 0}},
    /* Fixed by pmodels/mpich#6405 (coll: fix ialltoallw inplace). */
    [PCOLL__DEFECT_ALLTOALLW_INPLACE] = {"mpich-alltoallw-inplace", "MPICH Version:", NULL,
                                         {0, 0, 0}, {4, 1, 1}},
    /* Fixed by open-mpi/ompi#10488 (coll/base: fix bruck when sdtype and
     * rdtype are different). */
    [PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK] = {"ompi-alltoall-bruck", "Open MPI", NULL, {0, 0, 0},
                                           {4, 1, 5}},
    /* ompi/mpi/c/reduce_local.c calls ompi_mpi_comm_self's c_coll, which
     * sessions alone leave unset; still so in 5.0.11. */
    [PCOLL__DEFECT_OMPI_SESSIONS_REDUCE_LOCAL] = {"ompi-sessions-reduce-local", "Open MPI",
                                                  NULL, {5, 0, 0}, {999, 0, 0}},
    /* Fixed by pmodels/mpich#6337 (init: allow multiple init cycle) and
     * the sessions work of 4.1. */
    [PCOLL__DEFECT_MPICH_SESSIONS] = {"mpich-sessions", "MPICH Version:", NULL, {0, 0, 0},
                                      {4, 1, 0}},
    /* Seen in 4.0.2, not in 5.0.2; where between is not known. */
    [PCOLL__DEFECT_MPICH_INTER_RS_INIT] = {"mpich-inter-reduce-scatter-init", "MPICH Version:",
                                           NULL, {0, 0, 0}, {5, 0, 0}},
    /* Not fixed in any release pcoll knows of. */
    [PCOLL__DEFECT_OMPI_NEIGHBOR_CART] = {"ompi-neighbor-cart-folded", "Open MPI", NULL,
                                          {0, 0, 0}, {99, 0, 0}},
    /* Seen in 4.0.2, not in 5.0.2; where between is not known. */
    [PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER] = {"mpich-neighbor-order", "MPICH Version:", NULL,
                                            {0, 0, 0}, {5, 0, 0}},
};

/* The version "major.minor.patch" after the text `library` in s (missing
 * parts 0): 1, or 0 when s does not name the library. */
static int version_after(const char *s, const char *library, int v[3])
{
    const char *at = strstr(s, library);
    char *end;
    v[0] = v[1] = v[2] = 0;
    if (!at)
        return 0;
    at += strlen(library);
    at += strspn(at, " \tv");
    for (int i = 0; i < 3; i++) {
        v[i] = (int)strtol(at, &end, 10);
        if (end == at || *end != '.')
            return end != at || i > 0;
        at = end + 1;
    }
    return 1;
}

static int before(const int a[3], const int b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

unsigned pcoll__mpi_defects_of(const char *version)
{
    unsigned set = 0;
    int v[3];
    for (int d = 0; d < PCOLL__DEFECT_COUNT; d++) {
        const defect_row_t *r = &rows[d];
        if (version_after(version, r->library, v) && !before(v, r->from) &&
            before(v, r->before) && (!r->device || strstr(version, r->device)))
            set |= 1u << d;
    }
    return set;
}

int pcoll__mpi_defect(pcoll__defect_t d)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    /* Allowed at any time, also before MPI_Init and under MPI sessions. */
    if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return 0;
    version[len < (int)sizeof version ? len : (int)sizeof version - 1] = '\0';
    return (pcoll__mpi_defects_of(version) >> d) & 1u;
}

const char *pcoll__defect_name(pcoll__defect_t d)
{
    return d >= 0 && d < PCOLL__DEFECT_COUNT ? rows[d].name : "unknown";
}
