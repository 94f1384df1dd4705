/*
 * Items of a datatype to and from plain bytes (pack.h): the copies of the
 * kept node-aware engines, which bind every run to the call's own buffers
 * and types, so nothing of a copy is planned ahead.
 */
#include <limits.h>
#include <string.h>

#include "base/status.h"
#include "datatype/pack.h"
#include "datatype/size.h"

int pcoll__type_plain(MPI_Datatype type, MPI_Count *size)
{
    MPI_Aint lb, ext, tlb, text;
    pcoll__type_size(type, size);
    pcoll__type_extent(type, &lb, &ext);
    pcoll__type_true_extent(type, &tlb, &text);
    return lb == 0 && tlb == 0 && ext == text && (MPI_Count)ext == *size;
}

int pcoll__pack_items(const void *buf, MPI_Count count, MPI_Datatype type, int plain, char *out,
                      long long bytes, MPI_Comm comm, const char *what)
{
    int pos = 0;
    if (plain) {
        memcpy(out, buf, (size_t)bytes);
        return PCOLL_SUCCESS;
    }
    if (!buf)
        return pcoll_typed_copy(buf, (int)count, type, out, (int)bytes, MPI_PACKED);
    return MPI_Pack(buf, (int)count, type, out, (int)bytes, &pos, comm) == MPI_SUCCESS
               ? PCOLL_SUCCESS
               : pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Pack failed", what);
}

int pcoll__unpack_items(const char *in, long long bytes, void *buf, MPI_Count count,
                        MPI_Datatype type, int plain, MPI_Comm comm, const char *what)
{
    int pos = 0;
    if (plain) {
        memcpy(buf, in, (size_t)bytes);
        return PCOLL_SUCCESS;
    }
    if (!buf)
        return pcoll_typed_copy(in, (int)bytes, MPI_PACKED, buf, (int)count, type);
    return MPI_Unpack(in, (int)bytes, &pos, buf, (int)count, type, comm) == MPI_SUCCESS
               ? PCOLL_SUCCESS
               : pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Unpack failed", what);
}

int pcoll__bigs_items(pcoll__bigs_t *b, MPI_Count count, MPI_Datatype *type, int *n)
{
    int rc;
    if (count <= INT_MAX) {
        *n = (int)count;
        return PCOLL_SUCCESS;
    }
    if ((rc = pcoll__type_items(count, *type, &b->types[b->n])) != PCOLL_SUCCESS)
        return rc;
    *type = b->types[b->n++];
    *n = 1;
    return PCOLL_SUCCESS;
}

void pcoll__bigs_free(pcoll__bigs_t *b)
{
    while (b->n > 0)
        MPI_Type_free(&b->types[--b->n]);
}
