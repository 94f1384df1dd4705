/*
 * Statistics of one measured configuration: see stats.h for the method.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

int bench_tukey_filter(double *x, int n)
{
    double q1, q3, limit;
    int kept = n;
    if (n < 1)
        return 0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    q1 = bench_quantile(x, n, 0.25);
    q3 = bench_quantile(x, n, 0.75);
    limit = q3 + 1.5 * (q3 - q1);
    while (kept > 1 && x[kept - 1] > limit)
        kept--;
    return kept;
}

/* t(0.975, df) for df = 1..30 (any statistics table). */
static const double t_table[30] = {
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

double bench_t95(int df)
{
    const double z = 1.959963985; /* normal 97.5% quantile */
    double v = df;
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t_table[df - 1];
    /* Cornish-Fisher expansion of t in powers of 1/df (error < 1e-5 here). */
    return z + (pow(z, 3) + z) / (4 * v) +
           (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / (96 * v * v) +
           (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) / (384 * v * v * v);
}

/* Mean and sample standard deviation of x[0..n). */
static void moments(const double *x, int n, double *mean, double *sd)
{
    double sum = 0, sq = 0;
    int i;
    for (i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / n;
    for (i = 0; i < n; i++)
        sq += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(sq / (n - 1)) : NAN;
}

void bench_stats_compute(double *x, int n, bench_stats_t *s)
{
    s->n = n > 0 ? n : 0;
    s->kept = 0;
    s->q1 = s->q3 = s->median = s->mean = s->sd = s->min = s->max = s->ci95 = NAN;
    if (n < 1)
        return;
    s->kept = bench_tukey_filter(x, n);
    s->q1 = bench_quantile(x, n, 0.25);
    s->q3 = bench_quantile(x, n, 0.75);
    s->median = bench_quantile(x, s->kept, 0.5);
    s->min = x[0];
    s->max = x[s->kept - 1];
    moments(x, s->kept, &s->mean, &s->sd);
    if (s->kept > 1)
        s->ci95 = bench_t95(s->kept - 1) * s->sd / sqrt(s->kept);
}
