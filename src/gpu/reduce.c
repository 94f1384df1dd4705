/*
 * The device reduction (gpu.h): which predefined operations and types the
 * kernel of reduce_kernel.cu serves, and the call that runs it (or, under
 * the tests' pretence of device memory, the MPI's own local reduction on
 * the host, so that gpu_ipc's reduce-scatter runs in every build).
 */
#include <limits.h>
#include <string.h>

#include "base/status.h"
#include "gpu/gpu.h"

enum { SIGNED, UNSIGNED, FLOATING, BYTE };

typedef struct kind {
    MPI_Datatype type;
    int kind;
} kind_t;

/* The integer code of a width in bytes (1, 2, 4, 8), or -1. */
static int int_code(int size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? PCOLL__GPU_I8 : PCOLL__GPU_U8;
    case 2: return is_signed ? PCOLL__GPU_I16 : PCOLL__GPU_U16;
    case 4: return is_signed ? PCOLL__GPU_I32 : PCOLL__GPU_U32;
    case 8: return is_signed ? PCOLL__GPU_I64 : PCOLL__GPU_U64;
    default: return -1;
    }
}

static int type_code(MPI_Datatype type, int *kind)
{
    const kind_t kinds[] = {
        {MPI_SIGNED_CHAR, SIGNED},     {MPI_SHORT, SIGNED},
        {MPI_INT, SIGNED},             {MPI_LONG, SIGNED},
        {MPI_LONG_LONG, SIGNED},       {MPI_INT8_T, SIGNED},
        {MPI_INT16_T, SIGNED},         {MPI_INT32_T, SIGNED},
        {MPI_INT64_T, SIGNED},         {MPI_UNSIGNED_CHAR, UNSIGNED},
        {MPI_UNSIGNED_SHORT, UNSIGNED}, {MPI_UNSIGNED, UNSIGNED},
        {MPI_UNSIGNED_LONG, UNSIGNED}, {MPI_UNSIGNED_LONG_LONG, UNSIGNED},
        {MPI_UINT8_T, UNSIGNED},       {MPI_UINT16_T, UNSIGNED},
        {MPI_UINT32_T, UNSIGNED},      {MPI_UINT64_T, UNSIGNED},
        {MPI_BYTE, BYTE},              {MPI_FLOAT, FLOATING},
        {MPI_DOUBLE, FLOATING},
    };
    size_t i;
    int size = 0;
    for (i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (kinds[i].type != type)
            continue;
        *kind = kinds[i].kind;
        MPI_Type_size(type, &size);
        if (*kind == FLOATING)
            return type == MPI_FLOAT ? PCOLL__GPU_F32 : PCOLL__GPU_F64;
        return int_code(size, *kind == SIGNED);
    }
    return -1;
}

int pcoll__gpu_reduce_codes(MPI_Datatype type, MPI_Op op, int *tcode, int *ocode)
{
    const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MIN,  MPI_MAX,  MPI_LAND,
                          MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
    const int codes[] = {PCOLL__GPU_SUM,  PCOLL__GPU_PROD, PCOLL__GPU_MIN,  PCOLL__GPU_MAX,
                         PCOLL__GPU_LAND, PCOLL__GPU_LOR,  PCOLL__GPU_LXOR, PCOLL__GPU_BAND,
                         PCOLL__GPU_BOR,  PCOLL__GPU_BXOR};
    int kind = 0, i;
    *tcode = type_code(type, &kind);
    *ocode = -1;
    for (i = 0; i < (int)(sizeof ops / sizeof *ops); i++)
        if (ops[i] == op)
            *ocode = codes[i];
    if (*tcode < 0 || *ocode < 0)
        return 0;
    /* As MPI allows: arithmetic and order on numbers, logical and bitwise
     * operations on integers, bitwise on bytes. */
    if (kind == FLOATING)
        return *ocode <= PCOLL__GPU_MAX;
    if (kind == BYTE)
        return *ocode >= PCOLL__GPU_BAND;
    return 1;
}

/* The pretence: in[0] into out, then the others folded in. */
static int reduce_host(MPI_Datatype type, MPI_Op op, void *out, const void *const *in, int p,
                       long long n)
{
    int size = 0, i;
    long long done, k;
    MPI_Type_size(type, &size);
    if (out != in[0])
        memmove(out, in[0], (size_t)n * (size_t)size);
    for (i = 1; i < p; i++)
        for (done = 0; done < n; done += k) {
            k = n - done < INT_MAX ? n - done : INT_MAX;
            if (MPI_Reduce_local((const char *)in[i] + done * size, (char *)out + done * size,
                                 (int)k, type, op) != MPI_SUCCESS)
                return pcoll__error(PCOLL_ERR_MPI, "device reduction: MPI_Reduce_local");
        }
    return PCOLL_SUCCESS;
}

int pcoll__gpu_reduce(int tcode, int ocode, MPI_Datatype type, MPI_Op op, void *out,
                      const void *const *dev_in, const void *const *host_in, int p, long long n)
{
    if (n <= 0 || p <= 0)
        return PCOLL_SUCCESS;
    if (pcoll__gpu_pretend)
        return reduce_host(type, op, out, host_in, p, n);
#ifdef PCOLL_HAVE_CUDA
    {
        const char *msg = "";
        if (pcoll__gpu_launch_reduce(tcode, ocode, out, dev_in, p, n, &msg) != 0)
            return pcoll__error(PCOLL_ERR_INTERNAL, "device reduction of %lld elements: %s", n,
                                msg);
        return PCOLL_SUCCESS;
    }
#else
    (void)tcode, (void)ocode, (void)dev_in;
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "device reduction: built without CUDA");
#endif
}
