/*
 * test_bench_stats.c -- pcoll-bench's statistics (tools/pcoll-bench/stats.c)
 * on samples whose quartiles, Tukey filter, median, mean and confidence
 * interval are known by hand.  No MPI.
 */
#include <math.h>
#include <stdio.h>

#include "stats.h"

static int passed, failed;

static void near(double got, double want, double tol, const char *what)
{
    if (fabs(got - want) <= tol) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s: got %.6f, expected %.6f\n", what, got, want);
}

static void is(int ok, const char *what)
{
    passed += ok != 0;
    failed += !ok;
    if (!ok)
        printf("FAIL: %s\n", what);
}

static void test_quantile(void)
{
    const double x[] = {1, 2, 3, 4}, one[] = {7};
    near(bench_quantile(x, 4, 0.25), 1.75, 1e-12, "Q1 of 1..4 (linear interpolation)");
    near(bench_quantile(x, 4, 0.5), 2.5, 1e-12, "median of 1..4");
    near(bench_quantile(x, 4, 0.75), 3.25, 1e-12, "Q3 of 1..4");
    near(bench_quantile(x, 4, 0.0), 1, 0, "minimum");
    near(bench_quantile(x, 4, 1.0), 4, 0, "maximum");
    near(bench_quantile(one, 1, 0.75), 7, 0, "any quantile of one value");
}

static void test_tukey(void)
{
    double a[] = {100, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}; /* Q1 3.5, Q3 8.5: limit 16 */
    double b[] = {5, 5, 5, 5};                          /* IQR 0: nothing above */
    double c[] = {-100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; /* low values stay */
    double d[] = {1, 2, 3, 4, 16};                      /* Q1 2, Q3 4: limit 7 */
    is(bench_tukey_filter(a, 11) == 10, "Tukey drops 100 from 1..10,100");
    is(a[0] == 1 && a[9] == 10, "Tukey sorts the samples");
    is(bench_tukey_filter(b, 4) == 4, "Tukey keeps equal samples");
    is(bench_tukey_filter(c, 11) == 11, "Tukey keeps low outliers (upper filter only)");
    is(bench_tukey_filter(d, 5) == 4, "Tukey drops the value above Q3 + 1.5 IQR");
    is(bench_tukey_filter(d, 0) == 0, "Tukey of nothing");
}

static void test_t95(void)
{
    int df;
    near(bench_t95(1), 12.7062, 1e-4, "t(0.975, 1)");
    near(bench_t95(10), 2.2281, 1e-4, "t(0.975, 10)");
    near(bench_t95(30), 2.0423, 1e-4, "t(0.975, 30)");
    near(bench_t95(31), 2.0395, 1e-4, "t(0.975, 31) (expansion)");
    near(bench_t95(39), 2.0227, 1e-4, "t(0.975, 39)");
    near(bench_t95(120), 1.9799, 1e-4, "t(0.975, 120)");
    near(bench_t95(1000000), 1.9600, 1e-4, "t(0.975, 1e6) is the normal quantile");
    is(isnan(bench_t95(0)), "t with 0 degrees of freedom is NAN");
    for (df = 1; df < 200; df++)
        if (!(bench_t95(df + 1) < bench_t95(df)))
            break;
    is(df == 200, "t(0.975, df) decreases with df");
}

static void test_known_sample(void)
{
    /* Q1 4, Q3 5.5, limit 7.75: 9 is dropped; the kept 2,4,4,4,5,5,7 have
     * median 4, mean 31/7, sd 1.511858, CI t(6) * sd / sqrt(7). */
    double x[] = {9, 2, 4, 7, 4, 5, 4, 5};
    bench_stats_t s;
    bench_stats_compute(x, 8, &s);
    is(s.n == 8 && s.kept == 7, "known sample: 8 samples, 7 kept");
    near(s.q1, 4.0, 1e-12, "known sample: Q1");
    near(s.q3, 5.5, 1e-12, "known sample: Q3");
    near(s.median, 4.0, 1e-12, "known sample: median of the kept");
    near(s.mean, 31.0 / 7, 1e-12, "known sample: mean of the kept");
    near(s.sd, 1.511858, 1e-6, "known sample: standard deviation");
    near(s.ci95, 2.4469 * 1.511858 / sqrt(7), 1e-4, "known sample: CI half-width");
    near(s.min, 2, 0, "known sample: min");
    near(s.max, 7, 0, "known sample: max of the kept");
}

static void test_large_sample(void)
{
    double x[40];
    bench_stats_t s;
    int i;
    for (i = 0; i < 40; i++)
        x[i] = 40 - i; /* 40..1: no outlier */
    bench_stats_compute(x, 40, &s);
    is(s.kept == 40, "1..40: nothing dropped");
    near(s.median, 20.5, 1e-12, "1..40: median");
    near(s.mean, 20.5, 1e-12, "1..40: mean");
    near(s.ci95, 2.022691 * sqrt(40 * 41 / 12.0) / sqrt(40), 1e-3, "1..40: CI (t, 39 df)");
}

static void test_degenerate(void)
{
    double one[] = {3.5};
    bench_stats_t s;
    bench_stats_compute(NULL, 0, &s);
    is(s.n == 0 && s.kept == 0 && isnan(s.median) && isnan(s.ci95), "no samples: NAN");
    bench_stats_compute(one, 1, &s);
    is(s.kept == 1 && s.median == 3.5 && s.mean == 3.5, "one sample: its value");
    is(isnan(s.ci95) && isnan(s.sd), "one sample: no CI");
}

int main(void)
{
    test_quantile();
    test_tukey();
    test_t95();
    test_known_sample();
    test_large_sample();
    test_degenerate();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
