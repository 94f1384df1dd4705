/*
 * The neighbourhood all-to-alls (MPI_Neighbor_alltoall, _alltoallv,
 * _alltoallw: one table, PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM) and their
 * automatic choice.
 *
 * MPICH and Open MPI run these calls as one Isend and one Irecv per edge,
 * the messages `direct` sends, so the choice is about the per-call work
 * around them, not the messages.  A plan made together (persistent init,
 * the drop-in's MPI_Neighbor_*_init) takes `direct`: its requests are made
 * once at init and a run only starts them, where the MPI's own makes its
 * requests, or walks its schedule, on every run -- except on an MPI whose
 * blocking call a started plan makes instead (the cost model's defer: Open
 * MPI, whose blocking neighbourhood call at np 2 took 2.64 us against
 * direct's 3.91 for a 27-point stencil at 8 B): there `native` costs the
 * MPI's blocking call.  A one-shot call and the drop-in's non-blocking
 * calls take `native`: a plan for one call makes as many requests as the
 * MPI does, and the blocking call has nothing around the messages at all.
 * Where `native` cannot run (large counts on an MPI without the large-count
 * calls, a known MPI defect) `direct` serves.
 * `node` (bundles between nodes) is never auto's: it trades messages for
 * two copies of every byte between nodes, which only measurements between
 * real nodes can price.
 */
#include "alltoallv/inplace/inplace.h"
#include "select/select.h"

enum { N_DIRECT, N_NODE, N_NATIVE, N_AUTO };

static const pcoll__algo_t algos[] = {
    [N_DIRECT] = {"direct",
                  "a persistent send per out-edge and receive per in-edge, made at init and "
                  "started together",
                  pcoll__nbr_direct, 0},
    [N_NODE] = {"node",
                "the blocks between two nodes bundled through the node's shared memory into "
                "one message per pair of nodes (pcoll_cores_per_node: virtual nodes)",
                pcoll__nbr_node, PCOLL__ALGO_COLLECTIVE},
    [N_NATIVE] = {"native",
                  "the MPI's own MPI_Neighbor_alltoall(v/w): auto's choice for one-shot and "
                  "non-blocking calls",
                  pcoll__nbr_native, 0},
    [N_AUTO] = {"auto",
                "persistent: direct (native where the MPI's blocking call is cheaper: "
                "cost model's defer); one-shot and non-blocking: native (direct where "
                "native cannot run); never node",
                NULL, 0},
};

const pcoll__algo_table_t pcoll__neighbor_table = {
    "neighbor_alltoall", "PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", algos,
    (int)(sizeof algos / sizeof *algos)};

/* pcoll_neighbor_alltoallv_inplace_init (one algorithm), under the
 * collective name "neighbor_alltoallv_inplace": the in-place alltoallv
 * engine on the neighbourhood's blocks. */
static const pcoll__algo_t inplace_algos[] = {
    {"inplace",
     "limited memory (Hofmann and Ruenger) on the edges' blocks, merged into one message per "
     "neighbour rank: transfers into free space and aux slots of pcoll_aux_bytes in all",
     pcoll__alltoallv_inplace_neighbor, PCOLL__ALGO_INPLACE | PCOLL__ALGO_COLLECTIVE},
};

const pcoll__algo_table_t pcoll__neighbor_inplace_table = {
    "neighbor_alltoallv_inplace", "PCOLL_NEIGHBOR_ALLTOALLV_INPLACE_ALGORITHM", inplace_algos, 1};

int pcoll__select_neighbor(const pcoll__nbr_args_t *a, const pcoll__shape_t *s)
{
    if (!pcoll__algo_is_auto(&pcoll__neighbor_table, a->opts.algorithm))
        return a->opts.algorithm;
    return (!s->together || pcoll__cost_params().defer) && pcoll__nbr_native_usable(a)
               ? N_NATIVE
               : N_DIRECT;
}
