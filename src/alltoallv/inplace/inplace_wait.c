/*
 * In-place alltoallv: completing the requests of a run one at a time.
 *
 * Both engines (inplace_run.c, inplace_swap.c) react to each completed
 * request.  A blocking step takes one completion with MPI_Waitany; a
 * polling step (pcoll_test) takes completions with MPI_Testany until none
 * is left.  MPI_Waitsome and MPI_Testsome would hand over several at once,
 * but an MPI may charge them per request still in flight: SMPI, for one,
 * implements MPI_Waitsome as a wait for one request followed by a test of
 * every other, and prices every unfinished test (smpi/test), so with a few
 * hundred requests in flight each call cost tens of simulated microseconds
 * (docs/notes.md, "No global phases").  MPI_Waitany
 * and MPI_Testany look at the array once per call in every MPI.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "base/pmpi.h"

int pcoll__ip_next(int nr, MPI_Request *req, int block, int *index, MPI_Status *st)
{
    int flag = 1, err;
    *index = -1;
    err = block ? PCOLL__MPI(Waitany)(nr, req, index, st)
                : PCOLL__MPI(Testany)(nr, req, index, &flag, st);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: MPI_%s (%d)",
                            block ? "Waitany" : "Testany", err);
    if (!flag || *index == MPI_UNDEFINED)
        *index = -1;
    return PCOLL_SUCCESS;
}
