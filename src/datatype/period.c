/*
 * Periods of a block list (see shape.h).  Blocks [a, b) repeat with period
 * p, each copy shifted by one distance D, exactly when (1) the sequence
 * w[i] = (type, length, disp[i] - disp[i-1]) for i in (a, b) has period p in
 * the string sense and (2) block a+p has block a's type and length: then
 * disp[i] - disp[i-p] is the same sum of differences for every i >= a+p.
 * The periods of a string are its length minus its borders, which the
 * Knuth-Morris-Pratt failure function lists from the longest border down,
 * so the smallest period meeting (2) is found in linear time.
 */
#include "base/mem.h"
#include "base/status.h"
#include "datatype/shape.h"

/* w[i] == w[j] (i, j > 0 relative to the first block). */
static int same_step(const pcoll__block_t *b, long i, long j)
{
    return pcoll__block_like(&b[i], &b[j]) &&
           b[i].disp - b[i - 1].disp == b[j].disp - b[j - 1].disp;
}

/* The failure function of w[1..m): fail[q] is the longest proper border of
 * w[1..q+1]. */
static void failure(const pcoll__block_t *b, long m, long *fail)
{
    long k = 0;
    fail[0] = 0;
    for (long q = 1; q < m - 1; q++) {
        while (k > 0 && !same_step(b, q + 1, k + 1))
            k = fail[k - 1];
        if (same_step(b, q + 1, k + 1))
            k++;
        fail[q] = k;
    }
}

int pcoll__blocks_period(const pcoll__blocks_t *l, long a, long b, long *period)
{
    const pcoll__block_t *blk = l->b + a;
    long m = b - a, len = m - 1, border, *fail;
    *period = 0;
    if (m < 2)
        return PCOLL_SUCCESS;
    fail = pcoll__malloc((size_t)len * sizeof *fail);
    if (!fail)
        return pcoll__error(PCOLL_ERR_NOMEM, "normalize: %ld blocks", m);
    failure(blk, m, fail);
    border = fail[len - 1];
    for (;;) {
        long p = len - border;
        if (p > m / 2)
            break;
        if (pcoll__block_like(&blk[p], &blk[0])) {
            *period = p;
            break;
        }
        if (border == 0)
            break;
        border = fail[border - 1];
    }
    pcoll__free(fail);
    return PCOLL_SUCCESS;
}
