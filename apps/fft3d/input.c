/* input.c -- the real input fields of pcoll-fft3d (fft3d.h): the hash of
 * the coordinates every run transforms, and any field given as a function
 * of the global coordinates (--check's known spectrum). */
#include "fft3d.h"

double fft3d_hash_input(const fft3d_grid_t *g, int x, int y, int z)
{
    unsigned h = (unsigned)x * 73856093u ^ (unsigned)y * 19349663u ^ (unsigned)z * 83492791u;
    (void)g;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 20001u) / 10000.0 - 1.0;
}

void fft3d_fill_with(fft3d_t *f, fft3d_input_fn *u)
{
    const fft3d_grid_t *g = f->g;
    for (int z = 0; z < g->nzA; z++)
        for (int y = 0; y < g->nyA; y++)
            for (int x = 0; x < g->n[0]; x++)
                f->real[((size_t)z * g->nyA + y) * g->n[0] + x] = u(g, x, g->ys_A + y, g->zs + z);
}

void fft3d_fill(fft3d_t *f)
{
    fft3d_fill_with(f, fft3d_hash_input);
}
