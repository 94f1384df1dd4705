/* options.c -- the command line of pcoll-fft3d. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

static const char *const mode_names[FFT3D_NMODES] = {"native", "pcoll", "multi"};

const char *fft3d_mode_name(int mode)
{
    if (mode == FFT3D_ALL)
        return "all";
    return mode >= 0 && mode < FFT3D_NMODES ? mode_names[mode] : "?";
}

void fft3d_usage(FILE *out)
{
    fprintf(out,
            "usage: pcoll-fft3d --n N[,N1,N2] [--grid PRxPC]\n"
            "                   [--transpose multi|pcoll|native|all] [--iters K] [--check]\n"
            "                   [--dump FILE]\n"
            "  --n          real grid n0 x n1 x n2 (one value: a cube)\n"
            "  --grid       process grid, PR*PC = number of ranks (default: MPI_Dims_create)\n"
            "  --transpose  native (MPI_Alltoall[v]), pcoll (pcoll plans per row/column\n"
            "               communicator), multi (pcoll_alltoall_multi_init), all (each\n"
            "               of them in turn, in one run); default pcoll\n"
            "  --iters      timed forward+backward pairs (default 10)\n"
            "  --check      compare with serial FFTW (N <= 64), a known spectrum, round\n"
            "               trip, all transposes bitwise\n"
            "  --dump FILE  write the spectrum of the test input (raw complex doubles,\n"
            "               [kz][ky][kx], kx fastest) from rank 0\n");
}

/* A positive int from the whole of s, or -1. */
static int parse_pos(const char *s, char **end)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || v <= 0 || v > 1 << 24)
        return -1;
    *end = e;
    return (int)v;
}

static int parse_sizes(const char *s, int n[3])
{
    char *e;
    for (int d = 0; d < 3; d++) {
        if ((n[d] = parse_pos(s, &e)) < 0)
            return -1;
        if (d == 0 && *e == '\0') {
            n[1] = n[2] = n[0];
            return 0;
        }
        if (*e != (d < 2 ? ',' : '\0'))
            return -1;
        s = e + 1;
    }
    return 0;
}

static int parse_grid(const char *s, int *pr, int *pc)
{
    char *e;
    if ((*pr = parse_pos(s, &e)) < 0 || (*e != 'x' && *e != 'X'))
        return -1;
    if ((*pc = parse_pos(e + 1, &e)) < 0 || *e != '\0')
        return -1;
    return 0;
}

static int parse_mode(const char *s)
{
    if (strcmp(s, "all") == 0)
        return FFT3D_ALL;
    for (int m = 0; m < FFT3D_NMODES; m++)
        if (strcmp(s, mode_names[m]) == 0)
            return m;
    return -1;
}

int fft3d_parse(int argc, char **argv, fft3d_opts_t *o, char *msg, size_t len)
{
    *o = (fft3d_opts_t){.mode = FFT3D_PCOLL, .iters = 10};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *e;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strcmp(a, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (!v) {
            snprintf(msg, len, "option %s needs a value (or is unknown)", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--n") == 0 && parse_sizes(v, o->n) == 0)
            continue;
        if (strcmp(a, "--grid") == 0 && parse_grid(v, &o->pr, &o->pc) == 0)
            continue;
        if (strcmp(a, "--transpose") == 0 && (o->mode = parse_mode(v)) >= 0)
            continue;
        if (strcmp(a, "--dump") == 0 && *v != '\0') {
            o->dump = v;
            continue;
        }
        if (strcmp(a, "--iters") == 0 && (o->iters = parse_pos(v, &e)) >= 0 && *e == '\0')
            continue;
        snprintf(msg, len, "bad option or value: %s %s", a, v);
        return 2;
    }
    if (o->n[0] == 0) {
        snprintf(msg, len, "--n is required");
        return 2;
    }
    return 0;
}
