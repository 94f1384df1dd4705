/*
 * The --sizes grammar: a comma-separated list of items, each N (one size),
 * N:M (N, 2N, 4N, ... up to M), N:M:xF (factor F >= 2) or N:M:+D (step
 * D >= 1).  Numbers are decimal bytes, optionally followed by k or m (1024,
 * 1048576), from 0 to BENCH_MAX_BYTES.  At most BENCH_MAX_SIZES sizes, none
 * twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* One number of bytes: the whole of s. */
static int parse_bytes(const char *s, long *out, char *err, size_t errlen)
{
    char *end;
    long v, unit = 1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (end != s && (*end == 'k' || *end == 'K'))
        unit = 1024, end++;
    else if (end != s && (*end == 'm' || *end == 'M'))
        unit = 1024 * 1024, end++;
    if (end == s || *end != '\0' || errno == ERANGE || v < 0 || v > BENCH_MAX_BYTES / unit)
        return bench_fail(err, errlen, "--sizes: \"%s\" is not a size in bytes in [0, %ld]", s,
                          BENCH_MAX_BYTES);
    *out = v * unit;
    return 0;
}

/* Append v to sizes unless it is there already or the list is full. */
static int add_size(long v, long *sizes, int *n, char *err, size_t errlen)
{
    int i;
    for (i = 0; i < *n; i++)
        if (sizes[i] == v)
            return bench_fail(err, errlen, "--sizes: %ld appears twice", v);
    if (*n == BENCH_MAX_SIZES)
        return bench_fail(err, errlen, "--sizes: more than %d sizes", BENCH_MAX_SIZES);
    sizes[(*n)++] = v;
    return 0;
}

/* The step field: "xF" (multiply, F >= 2) or "+D" (add, D >= 1). */
static int parse_step(const char *s, int *multiply, long *step, char *err, size_t errlen)
{
    if ((s[0] != 'x' && s[0] != '+') || parse_bytes(s + 1, step, err, errlen) ||
        *step < (s[0] == 'x' ? 2 : 1))
        return bench_fail(err, errlen, "--sizes: step \"%s\" is not xF (F >= 2) or +D (D >= 1)",
                          s);
    *multiply = s[0] == 'x';
    return 0;
}

/* Split item at ':' into at most 3 fields (in place). */
static int split_fields(char *item, char *field[3])
{
    int n = 1;
    char *colon;
    field[0] = item;
    while ((colon = strchr(field[n - 1], ':')) != NULL) {
        if (n == 3)
            return -1;
        *colon = '\0';
        field[n++] = colon + 1;
    }
    return n;
}

/* One item: N, N:M or N:M:step. */
static int parse_item(char *item, long *sizes, int *n, char *err, size_t errlen)
{
    char *field[3];
    int nf = split_fields(item, field), multiply = 1;
    long lo, hi, step = 2, v;
    if (nf < 0)
        return bench_fail(err, errlen, "--sizes: too many ':' in an item");
    if (parse_bytes(field[0], &lo, err, errlen))
        return -1;
    if (nf == 1)
        return add_size(lo, sizes, n, err, errlen);
    if (parse_bytes(field[1], &hi, err, errlen) ||
        (nf == 3 && parse_step(field[2], &multiply, &step, err, errlen)))
        return -1;
    if (hi < lo || (multiply && lo == 0))
        return bench_fail(err, errlen,
                          "--sizes: range %ld:%ld needs 0 < start <= end (0 only with +step)",
                          lo, hi);
    for (v = lo;; v = multiply ? v * step : v + step) {
        if (add_size(v, sizes, n, err, errlen))
            return -1;
        /* Stop before the next value would pass hi (no overflow). */
        if (multiply ? v > hi / step : v > hi - step)
            return 0;
    }
}

int bench_parse_sizes(const char *arg, long *sizes, int *nsizes, char *err, size_t errlen)
{
    char item[128];
    const char *p = arg;
    int more;
    *nsizes = 0;
    while ((more = bench_next_item(&p, item, sizeof item)) > 0)
        if (parse_item(item, sizes, nsizes, err, errlen))
            return -1;
    if (more < 0 || *nsizes == 0)
        return bench_fail(err, errlen, "--sizes: empty or overlong item in \"%s\"", arg);
    return 0;
}
