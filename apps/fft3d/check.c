/* check.c -- pcoll-fft3d --check: the distributed forward transform against
 * a serial FFTW r2c of the whole grid (N <= 64), against the closed-form
 * spectrum of a product of sines, the round trip of every planned transpose
 * form, and the spectra of all forms compared bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

#define SERIAL_MAX_N 64
#define FORWARD_TOL 1e-12
#define KNOWN_TOL 1e-12
#define ROUNDTRIP_TOL 1e-13
#define TWO_PI 6.283185307179586476925286766559

/* Frequencies of the known-spectrum input along x, y, z: 1, 2, 3, each
 * lowered to (n-1)/2 so that k and n-k are distinct modes and k lies in the
 * stored half of the r2c axis.  Returns 0 when some n < 3 leaves none. */
static int sine_freqs(const fft3d_grid_t *g, int k[3])
{
    int ok = 1;
    for (int d = 0; d < 3; d++) {
        int kmax = (g->n[d] - 1) / 2;
        k[d] = d + 1 < kmax ? d + 1 : kmax;
        ok &= k[d] >= 1;
    }
    return ok;
}

/* sin(2 pi kx x/n0) sin(2 pi ky y/n1) sin(2 pi kz z/n2), phases reduced
 * modulo n first so that large products stay exact. */
static double sines_input(const fft3d_grid_t *g, int x, int y, int z)
{
    int k[3], pos[3] = {x, y, z};
    double u = 1;
    sine_freqs(g, k);
    for (int d = 0; d < 3; d++)
        u *= sin(TWO_PI * (double)((long)k[d] * pos[d] % g->n[d]) / g->n[d]);
    return u;
}

static size_t c_size(const fft3d_grid_t *g)
{
    return (size_t)g->kxB * g->nyC * g->n[2];
}

/* Rank 0: max |a - ref| / max |ref| over the n values of two spectra. */
static double rel_diff(const fftw_complex *a, const fftw_complex *ref, size_t n)
{
    double err = 0, ref_max = 0;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, hypot(a[i][0] - ref[i][0], a[i][1] - ref[i][1]));
        ref_max = fmax(ref_max, hypot(ref[i][0], ref[i][1]));
    }
    return ref_max > 0 ? err / ref_max : err;
}

/* The forward spectrum in f->c, gathered, against a serial r2c of the whole
 * input made on rank 0; the error there, -1 on the other ranks (INFINITY if
 * the gather failed). */
static double serial_error(fft3d_t *f)
{
    const fft3d_grid_t *g = f->g;
    const int *n = g->n;
    size_t nr = (size_t)n[0] * n[1] * n[2], nc = (size_t)g->nxc * n[1] * n[2];
    fftw_complex *all;
    if (fft3d_gather_spectrum(f, &all))
        return INFINITY;
    if (!all)
        return -1;
    double *in = fftw_alloc_real(nr), err;
    fftw_complex *out = fftw_alloc_complex(nc);
    for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++)
            for (int x = 0; x < n[0]; x++)
                in[((size_t)z * n[1] + y) * n[0] + x] = fft3d_hash_input(g, x, y, z);
    fftw_plan p = fftw_plan_dft_r2c_3d(n[2], n[1], n[0], in, out, FFTW_ESTIMATE);
    fftw_execute(p);
    err = rel_diff(all, out, nc);
    fftw_destroy_plan(p);
    fftw_free(in);
    fftw_free(out);
    fftw_free(all);
    return err;
}

/* The spectrum of sin(2 pi k x/n) at mode j is -i n/2 at j = k, +i n/2 at
 * j = n-k and 0 elsewhere: the sign of that imaginary part, or 0. */
static int sine_sign(int j, int k, int n)
{
    return j == k ? -1 : j == n - k ? 1 : 0;
}

/* Forward transform of sines_input with mode against its closed form: the
 * product of the three 1D spectra, -i s0 s1 s2 n0 n1 n2 / 8 (i^3 = -i).
 * Returns max |error| / (n0 n1 n2 / 8) over all ranks; *peaks gets the
 * number of nonzero modes met in the stored spectrum (4 expected). */
static double known_error(fft3d_t *f, int mode, int *peaks)
{
    const fft3d_grid_t *g = f->g;
    const int *n = g->n;
    int k[3], mine = 0;
    double peak = (double)n[0] * n[1] * n[2] / 8, err = 0, gl;
    sine_freqs(g, k);
    fft3d_fill_with(f, sines_input);
    if (fft3d_forward(f, mode))
        err = INFINITY;
    for (int kx = 0; kx < g->kxB; kx++)
        for (int y = 0; y < g->nyC; y++)
            for (int z = 0; z < n[2]; z++) {
                const double *d = f->c[((size_t)kx * g->nyC + y) * n[2] + z];
                int s = sine_sign(g->kxs + kx, k[0], n[0]) *
                        sine_sign(g->ys_C + y, k[1], n[1]) * sine_sign(z, k[2], n[2]);
                mine += s != 0;
                err = fmax(err, hypot(d[0], d[1] + s * peak));
            }
    MPI_Allreduce(&err, &gl, 1, MPI_DOUBLE, MPI_MAX, g->grid);
    MPI_Allreduce(&mine, peaks, 1, MPI_INT, MPI_SUM, g->grid);
    return gl / peak;
}

/* max |backward(forward(in)) / N - in| / max |in| over all ranks. */
static double roundtrip_error(fft3d_t *f, int mode)
{
    const fft3d_grid_t *g = f->g;
    size_t nr = (size_t)g->nzA * g->nyA * g->n[0];
    double scale = 1.0 / ((double)g->n[0] * g->n[1] * g->n[2]), e[2] = {0, 0}, gl[2];
    double *in = malloc(nr * sizeof *in);
    fft3d_fill(f);
    memcpy(in, f->real, nr * sizeof *in);
    if (fft3d_forward(f, mode) || fft3d_backward(f, mode))
        e[0] = INFINITY;
    for (size_t i = 0; i < nr; i++) {
        e[0] = fmax(e[0], fabs(f->real[i] * scale - in[i]));
        e[1] = fmax(e[1], fabs(in[i]));
    }
    MPI_Allreduce(e, gl, 2, MPI_DOUBLE, MPI_MAX, g->grid);
    free(in);
    return gl[1] > 0 ? gl[0] / gl[1] : gl[0];
}

/* 1 on every rank if the spectrum of every planned mode equals ref's bits. */
static int modes_agree(fft3d_t *f, const fftw_complex *ref, int *n_modes)
{
    int same = 1, all;
    *n_modes = 0;
    for (int m = 0; m < FFT3D_NMODES; m++) {
        if (!f->have[m])
            continue;
        ++*n_modes;
        fft3d_fill(f);
        if (fft3d_forward(f, m) || memcmp(f->c, ref, c_size(f->g) * sizeof *ref) != 0)
            same = 0;
    }
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, f->g->grid);
    return all;
}

/* Rank 0 prints "check WHAT: rel error E (< TOL) ok|FAIL"; 1 if failed. */
static int report(int rank, const char *what, double err, double tol)
{
    int fail = !(err < tol);
    if (rank == 0)
        printf("check %s: rel error %.3e (< %.0e) %s\n", what, err, tol, fail ? "FAIL" : "ok");
    return fail;
}

/* The known-spectrum check with its own message; 1 if it failed. */
static int check_known(fft3d_t *f, int mode, int rank)
{
    int k[3], peaks;
    char what[160];
    if (!sine_freqs(f->g, k)) {
        if (rank == 0)
            printf("check known spectrum: skipped (a dimension < 3 has no sine mode)\n");
        return 0;
    }
    double err = known_error(f, mode, &peaks);
    snprintf(what, sizeof what,
             "known spectrum of sin(%d x) sin(%d y) sin(%d z), %d of 4 stored modes -/+i "
             "n0n1n2/8, rest 0",
             k[0], k[1], k[2], peaks);
    return report(rank, what, peaks == 4 ? err : INFINITY, KNOWN_TOL);
}

/* The round trip of every planned mode; 1 if any failed. */
static int check_roundtrips(fft3d_t *f, int rank)
{
    int fail = 0;
    char what[64];
    for (int m = 0; m < FFT3D_NMODES; m++)
        if (f->have[m]) {
            snprintf(what, sizeof what, "round trip (%s)", fft3d_mode_name(m));
            fail |= report(rank, what, roundtrip_error(f, m), ROUNDTRIP_TOL);
        }
    return fail;
}

int fft3d_check(fft3d_t *f, int mode)
{
    const fft3d_grid_t *g = f->g;
    int rank, fail, n_modes, small = g->n[0] <= SERIAL_MAX_N && g->n[1] <= SERIAL_MAX_N &&
                                    g->n[2] <= SERIAL_MAX_N;
    MPI_Comm_rank(g->grid, &rank);
    fft3d_fill(f);
    fail = fft3d_forward(f, mode) != 0;
    fftw_complex *ref = fftw_alloc_complex(c_size(g) ? c_size(g) : 1);
    memcpy(ref, f->c, c_size(g) * sizeof *ref);
    if (small)
        fail |= report(rank, "forward vs serial FFTW", serial_error(f), FORWARD_TOL);
    else if (rank == 0)
        printf("check forward vs serial FFTW: skipped (N > %d)\n", SERIAL_MAX_N);
    int agree = modes_agree(f, ref, &n_modes);
    fftw_free(ref);
    fail |= check_known(f, mode, rank);
    fail |= check_roundtrips(f, rank);
    fail |= !agree;
    if (rank == 0)
        printf("check %d transpose modes give bitwise equal spectra: %s\n", n_modes,
               agree ? "ok" : "FAIL");
    MPI_Bcast(&fail, 1, MPI_INT, 0, g->grid);
    return fail;
}
