/*
 * Bucket type (zero-copy Bruck paper, section 3.5): count buckets of
 * bucketsize items; bucket i holds its first counts[i] items.  Extent:
 * count*bucketsize items of oldtype (items at multiples of its extent, lower
 * bound oldtype's), so an intermediate buffer of maximum-size elements can
 * be addressed with the actual element sizes.
 *
 * Built as MPI_Type_create_hindexed over the non-empty buckets (a full
 * bucket merged with the next one, as they touch), then resized.  Degenerate
 * cases collapse: no items -> an empty contiguous(0) resized; all counts
 * equal -> a vector (contiguous when the buckets are full or there is one
 * bucket); one merged block at item 0 -> contiguous.
 */
#include <limits.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/build.h"

static int check_counts(const char *fn, int count, int bucketsize, const int counts[])
{
    if (count < 0 || bucketsize < 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: negative count %d or bucketsize %d", fn,
                            count, bucketsize);
    if (count > 0 && !counts)
        return pcoll__error(PCOLL_ERR_ARG, "%s: counts is NULL", fn);
    for (int i = 0; i < count; i++)
        if (counts[i] < 0 || counts[i] > bucketsize)
            return pcoll__error(PCOLL_ERR_ARG, "%s: counts[%d] = %d outside [0, %d]", fn,
                                i, counts[i], bucketsize);
    return PCOLL_SUCCESS;
}

/* The filled part of the buckets as blocks (byte displacement, length in
 * items), touching buckets merged; returns the number of blocks. */
static int merge_blocks(int count, int bucketsize, const int counts[], MPI_Aint extent,
                        MPI_Aint *disps, int *lens)
{
    MPI_Aint end = -1; /* item just past the last block */
    int n = 0;
    for (int i = 0; i < count; i++) {
        MPI_Aint at = (MPI_Aint)i * bucketsize;
        if (counts[i] == 0)
            continue;
        if (at == end)
            lens[n - 1] += counts[i];
        else {
            disps[n] = at * extent;
            lens[n++] = counts[i];
        }
        end = at + counts[i];
    }
    return n;
}

/* The general case: an hindexed type over the merged blocks. */
static int build_indexed(int count, int bucketsize, const int counts[], MPI_Datatype old,
                         MPI_Aint extent, pcoll__pieces_t *p)
{
    MPI_Aint *disps = pcoll__malloc((size_t)count * (sizeof(MPI_Aint) + sizeof(int)));
    int *lens, n, rc = PCOLL_SUCCESS;
    MPI_Datatype t;
    if (!disps)
        return pcoll__error(PCOLL_ERR_NOMEM, "bucket: %d displacements", count);
    lens = (int *)(disps + count);
    n = merge_blocks(count, bucketsize, counts, extent, disps, lens);
    if (n == 1 && disps[0] == 0)
        rc = pcoll__pieces_contig(p, 0, lens[0], old);
    else if (MPI_Type_create_hindexed(n, lens, disps, old, &t) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "bucket: MPI_Type_create_hindexed failed");
    else
        rc = pcoll__pieces_add(p, 0, t);
    pcoll__free(disps);
    return rc;
}

/* All buckets filled alike: a vector, or one contiguous run when full. */
static int build_uniform(int count, int bucketsize, int filled, MPI_Datatype old,
                         pcoll__pieces_t *p)
{
    if (filled == bucketsize && (long long)count * bucketsize <= INT_MAX)
        return pcoll__pieces_contig(p, 0, count * bucketsize, old);
    return pcoll__pieces_vector(p, 0, count, filled, bucketsize, old);
}

static int all_equal(int count, const int counts[])
{
    for (int i = 1; i < count; i++)
        if (counts[i] != counts[0])
            return 0;
    return 1;
}

int pcoll_type_create_bucket(int count, int bucketsize, const int counts[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "pcoll_type_create_bucket";
    pcoll__pieces_t p = {0};
    MPI_Aint lb, extent;
    int rc = pcoll__type_check_args(fn, oldtype, newtype);

    if (rc == PCOLL_SUCCESS)
        rc = check_counts(fn, count, bucketsize, counts);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK_MPI(MPI_Type_get_extent(oldtype, &lb, &extent), rc, fail);
    if (count == 0 || all_equal(count, counts))
        rc = build_uniform(count, bucketsize, count ? counts[0] : 0, oldtype, &p);
    else
        rc = build_indexed(count, bucketsize, counts, oldtype, extent, &p);
    if (rc != PCOLL_SUCCESS)
        goto fail;
    return pcoll__pieces_finish(&p, oldtype, lb, (MPI_Aint)count * bucketsize * extent,
                                newtype);
fail:
    pcoll__pieces_free(&p);
    return rc;
}
