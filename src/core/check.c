/*
 * Argument checks and cross-rank agreement (see check.h).
 */
#include "core/check.h"
#include "core/comm.h"
#include "base/status.h"
#include "datatype/self.h"
#include "datatype/size.h"

/* MPI has no query for "committed": a zero-count MPI_Pack refuses an
 * uncommitted type in the MPIs we support, with errors returned on the
 * library's own communicator (no error handler is swapped, so threads may
 * check at once; datatype/self.h). */
static int is_committed(MPI_Datatype type)
{
    MPI_Comm probe = pcoll__self();
    char in = 0, out = 0;
    int pos = 0;
    return probe == MPI_COMM_NULL || MPI_Pack(&in, 0, type, &out, 1, &pos, probe) == MPI_SUCCESS;
}

int pcoll__check_type(MPI_Datatype type, const char *what, const char *fn)
{
    int ni, na, nd, combiner;
    if (type == MPI_DATATYPE_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is MPI_DATATYPE_NULL", fn, what);
    if (pcoll__type_is_named(type)) /* memoized: no MPI call */
        return PCOLL_SUCCESS;
    if (pcoll__type_envelope(type, &ni, &na, &nd, &combiner) < 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is not a datatype", fn, what);
    if (combiner != MPI_COMBINER_NAMED && !is_committed(type))
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is not committed", fn, what);
    return PCOLL_SUCCESS;
}

int pcoll__op_predefined(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,    MPI_LXOR,   MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    size_t i;
    for (i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i])
            return 1;
    return 0;
}

int pcoll__check_count(int count, const char *what, const char *fn)
{
    if (count < 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is negative (%d)", fn, what, count);
    return PCOLL_SUCCESS;
}

int pcoll__check_buffer(const void *buf, long long bytes, MPI_Datatype type, const char *what,
                        const char *fn)
{
    MPI_Aint true_lb, true_extent;
    if (buf == MPI_IN_PLACE)
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is MPI_IN_PLACE", fn, what);
    if (buf || bytes == 0)
        return PCOLL_SUCCESS;
    /* NULL is MPI_BOTTOM, which only types of absolute addresses may use
     * (a type that holds no data needs no buffer). */
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (true_lb == 0 && true_extent > 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s is NULL with %lld bytes to move", fn, what,
                            bytes);
    return PCOLL_SUCCESS;
}

/* Values per reduction: ranks must make the same calls whatever memory each
 * has, so a long list goes in chunks of a fixed size from the stack. */
#define CHUNK 128

int pcoll__agree_range(MPI_Comm comm, int rc, const long long *vals, int n, long long *mins,
                       long long *maxs, const char *fn)
{
    long long v[2 * CHUNK + 1];
    int i, first = 0, k;
    /* One MIN reduction gives the worst code and both the min and max of each
     * value; the code travels with every chunk. */
    do {
        k = n - first < CHUNK ? n - first : CHUNK;
        v[0] = rc;
        for (i = 0; i < k; i++) {
            long long x = vals ? vals[first + i] : 0;
            v[1 + 2 * i] = x == PCOLL__AGREE_ANY ? LLONG_MAX : x;
            v[2 + 2 * i] = x == PCOLL__AGREE_ANY ? LLONG_MAX : -x;
        }
        if (MPI_Allreduce(MPI_IN_PLACE, v, 2 * k + 1, MPI_LONG_LONG, MPI_MIN, comm) !=
            MPI_SUCCESS)
            v[0] = rc = pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Allreduce failed", fn);
        for (i = 0; mins && maxs && i < k; i++) {
            int any = v[1 + 2 * i] == LLONG_MAX && v[2 + 2 * i] == LLONG_MAX;
            mins[first + i] = any ? PCOLL__AGREE_ANY : v[1 + 2 * i];
            maxs[first + i] = any ? PCOLL__AGREE_ANY : -v[2 + 2 * i];
        }
        if (rc == PCOLL_SUCCESS && v[0] != PCOLL_SUCCESS)
            rc = pcoll__error((int)v[0], "%s: another rank reported %s", fn,
                              pcoll_err_name((int)v[0]));
        first += k;
    } while (first < n);
    return rc;
}

int pcoll__agree(MPI_Comm comm, int rc, const long long *vals, const char *const *what, int n,
                 const char *fn)
{
    long long mins[PCOLL__AGREE_MAX], maxs[PCOLL__AGREE_MAX];
    int i;
    if (n > PCOLL__AGREE_MAX)
        n = PCOLL__AGREE_MAX;
    rc = pcoll__agree_range(comm, rc, vals, n, mins, maxs, fn);
    for (i = 0; rc == PCOLL_SUCCESS && i < n; i++)
        if (mins[i] != maxs[i])
            return pcoll__error(PCOLL_ERR_MISMATCH, "%s: %s differs across ranks", fn,
                                what[i]);
    return rc;
}
