/*
 * Statistics of one measured configuration (no MPI): Tukey's outlier filter,
 * median, mean and the 95% confidence interval of the mean.
 *
 * Method (docs/benchmarking.md): the samples are sorted; Q1 and Q3 are the
 * 25% and 75% quantiles with linear interpolation between order statistics
 * (R's type 7, numpy's default); every sample above Q3 + 1.5 IQR is dropped
 * (the upper filter of the zero-copy Bruck paper, section 4); median, mean,
 * standard deviation and min/max are those of the kept samples; the 95%
 * confidence interval of the mean is mean +- t(0.975, kept-1) * sd / sqrt(kept)
 * with Student's t quantile (exact table up to 30 degrees of freedom, a
 * Cornish-Fisher expansion above).
 */
#ifndef PCOLL_BENCH_STATS_H
#define PCOLL_BENCH_STATS_H

typedef struct bench_stats {
    int n;          /* samples given */
    int kept;       /* samples left after Tukey's filter */
    double q1, q3;  /* quartiles of all samples */
    double median, mean, sd, min, max; /* of the kept samples */
    double ci95;    /* half-width of the 95% CI of the mean; NAN when kept < 2 */
} bench_stats_t;

/* Quantile q (0..1) of n >= 1 sorted values, linear interpolation. */
double bench_quantile(const double *sorted, int n, double q);

/* Sort x[0..n) ascending and drop the values above Q3 + 1.5 IQR: the kept
 * values are x[0..return value). */
int bench_tukey_filter(double *x, int n);

/* Two-sided 95% quantile of Student's t with df >= 1 degrees of freedom. */
double bench_t95(int df);

/* Every statistic of x[0..n), n >= 1 (x is sorted and filtered in place);
 * with n == 0 all values are NAN and the counts 0. */
void bench_stats_compute(double *x, int n, bench_stats_t *s);

#endif
