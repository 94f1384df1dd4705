/*
 * pcoll.h -- planned collectives: high-performance MPI collective algorithms
 * that run on top of any MPI implementation.
 *
 * This is the one public header.  Every function returns an int: PCOLL_SUCCESS
 * (0) or one of the negative PCOLL_ERR_* codes below.
 *
 * Ownership and lifetimes
 * -----------------------
 * - A plan (pcoll_plan_t) is created by one of the *_init calls, which are
 *   collective over the communicator, and destroyed by pcoll_plan_free.  The
 *   caller owns the plan.  Plans must be freed before MPI_Finalize.
 *   Communicators born from MPI sessions (MPI_Comm_create_from_group,
 *   without MPI_Init) are served too: free their plans, then the
 *   communicators, before MPI_Session_finalize; freeing the last
 *   communicator pcoll knows releases everything pcoll holds of MPI.  The
 *   progress thread (pcoll_progress=thread) needs MPI_Init_thread.
 *   Plans of the node-aware algorithms (`hier`, pcoll_alltoall_multi_init,
 *   the neighbourhood all-to-alls' `node`) and of reduce-scatter `node_ring`
 *   and `node_direct` (auto's choices for plans whose ranks all share one
 *   node) hold a shared-memory window whose release is collective over the
 *   node: free them in the same order on every rank (as
 *   MPI requires for MPI_Win_free).
 * - Buffers, counts, datatypes and the communicator are bound at init, exactly
 *   as for MPI persistent requests.  While a plan is active (between
 *   pcoll_start and the pcoll_test/pcoll_wait that completes it) the send
 *   buffer must not be modified and the receive buffer must not be accessed.
 *   Between runs both may be read and written freely.  The caller keeps the
 *   buffers allocated until the plan is freed.
 * - Datatypes and info objects passed to init may be freed by the caller as
 *   soon as init returns; the plan keeps what it needs.  The communicator must
 *   stay valid until the plan is freed (the plan uses a private duplicate).
 * - User ops: a user-defined MPI_Op (reduce-scatter) is called with the
 *   datatype handle the caller passed, on every algorithm, persistent,
 *   one-shot and through the drop-in, as MPI calls it.  The plan runs its
 *   messages and copies on a duplicate of a derived type, and hands the op
 *   the caller's handle for as long as MPI keeps the caller's type: until
 *   MPI destroys it (at MPI_Type_free, or later while a type made from it,
 *   such as the plan's duplicate, still holds it; the handle is valid until
 *   then).  From then on a persistent plan calls the op with its own
 *   duplicate, a handle of a type with the same type map, extent and size.
 *   The plan learns of it through an attribute on the caller's type, whose
 *   delete callback runs in the thread that frees the type: free it while
 *   no run of the plan is in progress in another thread.
 * - Library traffic runs on a duplicate of the communicator, made on the first
 *   pcoll call on that communicator, so it never matches user messages.
 * - Plans on the same communicator must be started in the same order on every
 *   rank, as MPI requires for persistent collectives.  Several plans may be
 *   active at the same time.
 * - The one-shot calls (pcoll_alltoall, ...) cache plans per communicator,
 *   keyed by every argument including buffer addresses; the cache is bounded
 *   and is emptied when the communicator is freed or MPI is finalized.  They
 *   check arguments locally, as MPI's own collectives do; the *_init calls also
 *   agree on the verdict across ranks, so bad input on one rank makes every
 *   rank return an error instead of hanging.
 * - alltoall and reduce_scatter(_block) one-shot calls also keep, per
 *   communicator, plans that every rank made together (the node-aware
 *   engines), keyed by what every rank knows alike: the sizes in bytes and
 *   the type signature, never buffers or handles.  The second call of such a
 *   shape makes its plan (one agreement, as an *_init does); later calls of
 *   the shape run it on their own buffers, whatever their handles.  The
 *   drop-in's non-blocking calls of a shape that holds such a plan queue a
 *   run of it (docs/design.md "Shapes").  alltoallv's shape has no sizes
 *   (the options and MPI_IN_PLACE use): the node-aware plan it keeps takes
 *   each call's counts, exchanging them on the node in every run.
 *
 * Threads: with MPI initialized at MPI_THREAD_MULTIPLE, threads may call
 * pcoll at the same time as long as each uses communicators of its own (and
 * the plans made on them); below that level, MPI's rules for the level hold.
 * What the library shares between threads is synchronized: communicator
 * contexts are created and listed under a lock (the MPI keyvals behind them
 * are made once), the memory counters (pcoll_mem_*) are atomic, and a
 * datatype that cached one-shot plans name may be freed from any thread.
 * pcoll_last_error() is per thread: it explains the calling thread's last
 * error.
 * Not synchronized, as for MPI's own collectives: the same communicator from
 * two threads at once (its context, one-shot cache and tag counter take no
 * lock), and the same plan from two threads at once (start, test, wait,
 * free); a plan or communicator may pass to another thread between calls
 * when the program orders them (a join, a mutex).  Every communicator a call
 * takes counts as used (both of pcoll_alltoall_multi_init), and
 * pcoll_alltoall_multi_init with a column communicator also makes a
 * communicator from MPI_COMM_WORLD with a fixed tag: two threads must not be
 * in it at once.  Datatypes, ops and info objects may be shared read-only.
 */
#ifndef PCOLL_H
#define PCOLL_H

#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PCOLL_BUILDING) && defined(__GNUC__)
#define PCOLL_API __attribute__((visibility("default")))
#else
#define PCOLL_API
#endif

#define PCOLL_VERSION_MAJOR 0
#define PCOLL_VERSION_MINOR 1
#define PCOLL_VERSION_PATCH 0

/* Status codes: X(name, value, message).  The one table from which the enum,
 * pcoll_err_name and pcoll_strerror are generated. */
#define PCOLL_STATUS_MAP(X)                                                         \
    X(SUCCESS, 0, "success")                                                        \
    X(ERR_ARG, -1, "invalid argument")                                              \
    X(ERR_NOMEM, -2, "out of memory")                                               \
    X(ERR_MPI, -3, "an MPI call failed")                                            \
    X(ERR_UNSUPPORTED, -4, "the algorithm cannot handle these arguments")           \
    X(ERR_STATE, -5, "plan misuse (start twice, wait on inactive plan, free active)") \
    X(ERR_MISMATCH, -6, "arguments inconsistent across ranks or between send and receive") \
    X(ERR_INTERNAL, -7, "internal error")

enum pcoll_status {
#define PCOLL_STATUS_ENUM_(name, value, msg) PCOLL_##name = (value),
    PCOLL_STATUS_MAP(PCOLL_STATUS_ENUM_)
#undef PCOLL_STATUS_ENUM_
};

/* The message for a status code ("unknown status" for any other value). */
PCOLL_API const char *pcoll_strerror(int rc);
/* The code's name without prefix, e.g. "ERR_ARG" ("UNKNOWN" for any other value). */
PCOLL_API const char *pcoll_err_name(int rc);
/* The message that explains the last error the calling thread got, or "".
 * The library prints nothing by itself: errors go to the return code and to
 * this message.  With PCOLL_VERBOSE=1 (or true) in the environment, or the
 * info key pcoll_verbose=1 passed to a call, each error is also printed to
 * stderr where it is raised (errors found before a call's options are read,
 * such as a NULL plan pointer, only with the environment variable). */
PCOLL_API const char *pcoll_last_error(void);

typedef struct pcoll_plan pcoll_plan_t;

/* ---------------------------------------------------------------------------
 * Persistent (planned) collectives.  Same arguments as MPI-4's *_init calls,
 * with the plan out last.  Collective over comm.  On error *plan is NULL.
 *
 * Info keys (all optional; the environment variables PCOLL_ALGORITHM,
 * PCOLL_RADIX, ... and the per-collective PCOLL_ALLTOALL_ALGORITHM override
 * them): pcoll_algorithm, pcoll_radix, pcoll_ports, pcoll_throttle,
 * pcoll_cores_per_node, pcoll_aux_bytes, pcoll_aux_buffers.  An unknown
 * algorithm or a malformed value returns PCOLL_ERR_ARG.
 * ------------------------------------------------------------------------- */

/* All-to-all.  sendbuf may be MPI_IN_PLACE (then recvbuf/recvcount/recvtype
 * describe both directions).  Algorithms: linear, pairwise, scattered, the
 * Bruck family, hier (node-aware: see pcoll_alltoall_multi_init), auto. */
PCOLL_API int pcoll_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);

/* All-to-all with a count and displacement per peer (MPI_Alltoallv).
 * Algorithms: linear, pairwise, scattered, bruck_zerocopy (nearly regular
 * sizes: info pcoll_regular_ratio), padded_bruck, bruck_radix, inplace, hier,
 * native, auto.
 * sendbuf may be MPI_IN_PLACE (the receive layout is used for both
 * directions, as in MPI). */
PCOLL_API int pcoll_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   pcoll_plan_t **plan);

/* All-to-all with a count, a byte displacement and a datatype per peer, for
 * each direction (MPI_Alltoallw): block i of sendbuf is sendcounts[i] items
 * of sendtypes[i] at sdispls[i] bytes, and likewise for the receive side.
 * Every pair of ranks must agree on the bytes it exchanges
 * (PCOLL_ERR_MISMATCH on every rank otherwise).  sendbuf may be
 * MPI_IN_PLACE (sendcounts, sdispls and sendtypes are then ignored, as in
 * MPI); buffers may be MPI_BOTTOM with types of absolute addresses.  The
 * type of a zero count may be MPI_DATATYPE_NULL, as MPI_Alltoallw allows
 * (alltoall, alltoallv and reduce-scatter refuse it with PCOLL_ERR_ARG, as
 * MPICH does).  The plan keeps its own copies of the arrays and types: the
 * caller may free them once init returns.  Algorithms: linear, pairwise
 * (also in place), scattered, bruck_zerocopy (every type made of one
 * predefined type, nearly regular sizes), native (MPI_Alltoallw), auto (in
 * place: native; PCOLL_ALLTOALLW_ALGORITHM). */
PCOLL_API int pcoll_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                   const int sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Info info, pcoll_plan_t **plan);

/* Multiple all-to-all (pencil FFT transposes; multicore all-to-all paper,
 * section II-C): an alltoall inside every comm_row, all of them at once, the
 * messages of ranks that share a node merged into one message per pair of
 * nodes.  The arguments are those of MPI_Alltoall on comm_row (block i of the
 * buffers belongs to rank i of comm_row; sendbuf may be MPI_IN_PLACE).
 * comm_column is the perpendicular communicator of a 2-D process grid (e.g.
 * from MPI_Cart_sub): it holds exactly one rank of every row, all rows have
 * the same size, and every rank belongs to MPI_COMM_WORLD.  comm_column may
 * be MPI_COMM_NULL: then only comm_row's alltoall is planned (alltoall
 * `hier`).  Collective over the union of the rows (every rank of the grid).
 * Rows and nodes need not align.  Info keys as for pcoll_alltoall_init
 * (pcoll_cores_per_node, pcoll_ports, pcoll_radix, pcoll_throttle); the only
 * algorithm is `hier` (PCOLL_ALLTOALL_MULTI_ALGORITHM). */
PCOLL_API int pcoll_alltoall_multi_init(const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm_row,
                                        MPI_Comm comm_column, MPI_Info info,
                                        pcoll_plan_t **plan);

/* In-place alltoallv whose send and receive layouts differ: the outgoing
 * blocks (sendcounts/sdispls) of buf are replaced by the incoming ones
 * (recvcounts/rdispls), with extra memory independent of the message sizes:
 * O(p) integers plus auxiliary buffers (info pcoll_aux_bytes, default 1 MiB,
 * in pcoll_aux_buffers buffers, default a / 32 KiB in 2..16, one when a is
 * under 16 KiB).  Send blocks must not
 * overlap each other, nor receive blocks each other; a send block may overlap
 * receive blocks.  Displacements and counts are in items of type. */
PCOLL_API int pcoll_alltoallv_inplace_init(void *buf, const int sendcounts[],
                                           const int sdispls[], const int recvcounts[],
                                           const int rdispls[], MPI_Datatype type,
                                           MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);

/* Neighbourhood all-to-alls (MPI_Neighbor_alltoall, _alltoallv,
 * _alltoallw) on a communicator with a topology: every rank sends one block
 * along each out-edge and receives one along each in-edge, in MPI's order of
 * the neighbours.  Cartesian (MPI_Cart_create): for every dimension the
 * neighbour below, then the one above; MPI_PROC_NULL neighbours past a
 * non-periodic border get nothing and leave their receive block untouched.
 * Graph (MPI_Graph_create): MPI_Graph_neighbors, both directions.
 * Distributed graph (MPI_Dist_graph_create(_adjacent)): the sources and
 * destinations of MPI_Dist_graph_neighbors; a repeated edge carries one
 * message per occurrence, matched in list order; self edges and ranks
 * without neighbours are allowed; weights are ignored.  The arrays have one
 * entry per edge (indegree receive entries, outdegree send entries); the
 * alltoallw displacements are in bytes (MPI_Aint in every form, as in MPI);
 * the type of a zero count may be MPI_DATATYPE_NULL there.  MPI_IN_PLACE is
 * not allowed (as in MPI).  A communicator without a topology:
 * PCOLL_ERR_ARG on every rank (MPI's MPI_ERR_TOPOLOGY).  The init also
 * checks that both ends of every edge agree on its size in bytes
 * (PCOLL_ERR_MISMATCH on every rank otherwise; one neighbourhood exchange of
 * the sizes at init); the one-shot calls check locally only, as MPI does (a
 * size mismatch is then an MPI error on the receiving rank).  The plan keeps
 * its own copies of the arrays, neighbour lists and types.  Algorithms
 * (one table for the three forms, PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM):
 * direct (a persistent send and receive per edge, started together), node
 * (the blocks between two nodes bundled through the node's shared memory
 * into one message; pcoll_cores_per_node for virtual nodes; a shared window
 * per plan and node, see "Ownership"), multi (Cartesian communicators
 * without a periodic dimension of 1 or 2 ranks, else PCOLL_ERR_UNSUPPORTED:
 * the exchange along each dimension as an all-to-all inside every row,
 * bundled per pair of nodes; a shared window per plan, node and dimension;
 * never chosen by auto), native (the MPI's own), auto
 * (persistent: direct, or native where the MPI's blocking call costs less, as
 * Open MPI's; one-shot: native). */
PCOLL_API int pcoll_neighbor_alltoall_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           pcoll_plan_t **plan);
PCOLL_API int pcoll_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
PCOLL_API int pcoll_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, pcoll_plan_t **plan);

/* In-place neighbourhood alltoallv (MPI_Neighbor_alltoallv's edges, one
 * buffer): the outgoing blocks of buf (sendcounts/sdispls, one per
 * out-edge) are replaced by the incoming ones (recvcounts/rdispls, one per
 * in-edge), with the engine and memory of pcoll_alltoallv_inplace_init:
 * extra memory independent of the message sizes, O(p) integers (p the size
 * of comm) plus pcoll_aux_bytes of auxiliary buffers.  Neighbours, their
 * order and the pairing of edges as for pcoll_neighbor_alltoallv_init; one
 * type for both directions; counts and displacements in items of type.
 * Edges to MPI_PROC_NULL move nothing.  Send blocks must not overlap each
 * other, nor receive blocks each other (PCOLL_ERR_ARG); a send block may
 * overlap receive blocks.  After a run the receive blocks of real edges
 * hold the data; items of buf that were in a send block and are in none of
 * them are undefined; the rest of buf is untouched.  Edges repeated to one
 * rank (a rank listed twice, a periodic Cartesian dimension of 1 or 2
 * ranks) travel as one message: their non-empty blocks must lie end to end
 * on both sides, and the k-th of them by position at the sender must pair
 * with the k-th by position at the receiver; otherwise
 * PCOLL_ERR_UNSUPPORTED on every rank.  Init checks that both ends of every
 * edge agree on its count (PCOLL_ERR_MISMATCH on every rank otherwise) and
 * that every rank's type has the same size.  Persistent only: start the
 * plan as often as needed with new data in buf.  One algorithm, `inplace`
 * (PCOLL_NEIGHBOR_ALLTOALLV_INPLACE_ALGORITHM). */
PCOLL_API int pcoll_neighbor_alltoallv_inplace_init(void *buf, const int sendcounts[],
                                                    const int sdispls[], const int recvcounts[],
                                                    const int rdispls[], MPI_Datatype type,
                                                    MPI_Comm comm, MPI_Info info,
                                                    pcoll_plan_t **plan);

/* Reduce-scatter: reduce the p*recvcount (block form) or sum(recvcounts)
 * elements of sendbuf over all ranks with op, in rank order, and leave block
 * i of the result at rank i.  sendbuf may be MPI_IN_PLACE (the input is then
 * taken from recvbuf, which must hold the whole vector; the result is left at
 * its start).  type may be derived if its type map is one predefined type.
 * Algorithms: mst, ring, ring_prepost, recursive_halving, pairwise, circulant
 * (commutative ops; a non-commutative op runs recursive_halving), node_ring
 * and node_direct (every rank on one node, a shared window made at init, see
 * "Ownership"; node_ring commutative ops; else circulant), native, auto. */
PCOLL_API int pcoll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                              MPI_Info info, pcoll_plan_t **plan);
PCOLL_API int pcoll_reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                        const int recvcounts[], MPI_Datatype type, MPI_Op op,
                                        MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);

/* MPI-4's large-count forms of the calls above (and of the one-shot calls
 * below): MPI_Count counts, MPI_Aint displacements, argument order as
 * MPI_Alltoall_init_c and friends; on every MPI (MPI-3's too), any count.
 * A block of more than INT_MAX items travels as one item of a type of that
 * many items; a reduce-scatter run of more than INT_MAX elements in pieces.
 * Algorithms that count in ints step aside: the automatic choice avoids
 * them, and named explicitly they return PCOLL_ERR_UNSUPPORTED on every rank
 * (alltoallv bruck_zerocopy and padded_bruck with elements of more than
 * INT_MAX basic items, inplace with counts or block ends over INT_MAX,
 * reduce-scatter ring_prepost with a block over INT_MAX elements).
 * Negative displacements: PCOLL_ERR_ARG, as in the int form.  One call is
 * made in one form on every rank: with an MPI-3 library a one-shot or
 * non-blocking call of the int form may run the MPI's own call, which the
 * large-count form on another rank would not match. */
PCOLL_API int pcoll_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan);
PCOLL_API int pcoll_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                     void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
/* (alltoallw: the MPI's own call is MPI_Alltoallw_c where a count or
 * displacement is past INT_MAX, which needs MPI-4.) */
PCOLL_API int pcoll_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
/* (neighbourhood all-to-alls: native runs MPI_Neighbor_*_c where a count or
 * displacement is past INT_MAX, which needs MPI-4; elsewhere auto takes
 * direct.) */
PCOLL_API int pcoll_neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
PCOLL_API int pcoll_neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                              void *recvbuf, const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
PCOLL_API int pcoll_neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[],
                                              const MPI_Datatype sendtypes[], void *recvbuf,
                                              const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[],
                                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                                              MPI_Info info, pcoll_plan_t **plan);
PCOLL_API int pcoll_reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
                                                MPI_Count recvcount, MPI_Datatype type,
                                                MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                pcoll_plan_t **plan);
PCOLL_API int pcoll_reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                                          const MPI_Count recvcounts[], MPI_Datatype type,
                                          MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          pcoll_plan_t **plan);

/* Begin one run of the plan (non-blocking).  PCOLL_ERR_STATE if it is active.
 * Device buffers (docs/gpu.md): pcoll_start, like the one-shot calls, assumes
 * that the program's writes to device buffers are complete (synchronize the
 * stream that wrote them first: a cudaMemcpy from pageable host memory and a
 * cudaMemset can return before the device memory is written, and gpu_ipc
 * reads and writes the buffers from another process), as CUDA-aware MPIs
 * do; the receive buffer is complete on the device when the run completes. */
PCOLL_API int pcoll_start(pcoll_plan_t *plan);
/* Make progress without blocking; *flag = 1 once the run is complete (the plan
 * is then inactive again).  PCOLL_ERR_STATE if the plan is not active.
 * Progress: pcoll_test and pcoll_wait advance every active plan of the
 * process, not only their own (and so do MPI_Wait, MPI_Test ... under the
 * drop-in), so active plans may be completed in any order on any rank.  A
 * one-shot call runs to its end and advances no other plan while it blocks
 * in a `native` algorithm.  With pcoll_progress=thread (info key, or
 * PCOLL_PROGRESS=thread; the other value is wait, the default) the first
 * call that asks for it starts a progress thread that advances every active
 * plan while the program computes, until MPI_Finalize; it needs MPI
 * initialized with MPI_THREAD_MULTIPLE (else that call returns
 * PCOLL_ERR_UNSUPPORTED), and a plan it is advancing is skipped by the
 * program's own calls for that moment. */
PCOLL_API int pcoll_test(pcoll_plan_t *plan, int *flag);
/* Complete the run.  PCOLL_ERR_STATE if the plan is not active. */
PCOLL_API int pcoll_wait(pcoll_plan_t *plan);
/* Free the plan and set *plan = NULL.  NULL or *plan == NULL is a no-op.
 * PCOLL_ERR_STATE (and nothing freed) if the plan is active. */
PCOLL_API int pcoll_plan_free(pcoll_plan_t **plan);
/* The name of the algorithm the plan runs, e.g. "pairwise"; "" for NULL. */
PCOLL_API const char *pcoll_plan_algorithm(const pcoll_plan_t *plan);
/* Print the plan's schedule (rounds, peers, bytes) in readable form, after
 * what the algorithm adds (hier: a line "node memory: ..." with the bytes of
 * the node's shared segment, the multicore paper's equation (1)). */
PCOLL_API int pcoll_plan_print(const pcoll_plan_t *plan, FILE *out);

/* ---------------------------------------------------------------------------
 * One-shot calls: exactly MPI's signatures; the algorithm comes from the
 * environment (PCOLL_ALLTOALL_ALGORITHM, PCOLL_ALGORITHM) or the automatic
 * choice; plans are cached per communicator.
 * ------------------------------------------------------------------------- */
PCOLL_API int pcoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);

PCOLL_API int pcoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
/* A one-shot call whose types name more derived datatypes than the plan
 * cache watches (4) is planned anew on every call. */
PCOLL_API int pcoll_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoall(const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                      MPI_Datatype recvtype, MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm);
PCOLL_API int pcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype type, MPI_Op op, MPI_Comm comm);
PCOLL_API int pcoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm);
/* The one-shot large-count forms (see pcoll_alltoall_init_c). */
PCOLL_API int pcoll_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm);
PCOLL_API int pcoll_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm);
PCOLL_API int pcoll_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void *recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPI_Comm comm);
PCOLL_API int pcoll_neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                         void *recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[],
                                         const MPI_Datatype recvtypes[], MPI_Comm comm);
PCOLL_API int pcoll_reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                           MPI_Count recvcount, MPI_Datatype type, MPI_Op op,
                                           MPI_Comm comm);
PCOLL_API int pcoll_reduce_scatter_c(const void *sendbuf, void *recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm);

/* ---------------------------------------------------------------------------
 * Datatype helpers.
 * ------------------------------------------------------------------------- */

/* Derived datatypes that MPI lacks (zero-copy Bruck paper, Fig. 2).  Like
 * MPI's constructors they return an UNCOMMITTED type that the caller commits
 * and frees.  Counts are in oldtype units (items of oldtype, which may itself
 * be derived or resized); invalid parameters return PCOLL_ERR_ARG.
 *
 * bounded vector: blocks of blocklength items every stride items, starting at
 *   item 0 and covering the items with index < bound; the last block is cut
 *   at bound.  Extent: bound items.
 * circular vector: the same pattern laid on a ring of total items that starts
 *   at item `start` and wraps from total-1 to 0; bound items of the ring are
 *   spanned.  Extent: total items (so consecutive items tile whole rings).
 * bucket: count buckets of bucketsize items; bucket i holds its first
 *   counts[i] items (0 <= counts[i] <= bucketsize).  Extent: count*bucketsize.
 */
PCOLL_API int pcoll_type_create_bounded_vector(int bound, int blocklength, int stride,
                                               MPI_Datatype oldtype, MPI_Datatype *newtype);
PCOLL_API int pcoll_type_create_circular_vector(int total, int start, int bound,
                                                int blocklength, int stride,
                                                MPI_Datatype oldtype, MPI_Datatype *newtype);
PCOLL_API int pcoll_type_create_bucket(int count, int bucketsize, const int counts[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype);
/* A contiguous type with the same type signature as one item of type (the
 * paper's "signature type"): its extent equals its size.  Uncommitted. */
PCOLL_API int pcoll_type_signature(MPI_Datatype type, MPI_Datatype *sigtype);

/* Local copy of srccount items of srctype at src into dstcount items of
 * dsttype at dst.  The two must have the same type signature
 * (PCOLL_ERR_MISMATCH otherwise); MPI_PACKED on either side matches any
 * signature of the same size, as in MPI.  Faster than a send-receive to self:
 * a memcpy when both layouts are contiguous, else one MPI_Pack/MPI_Unpack. */
PCOLL_API int pcoll_typed_copy(const void *src, int srccount, MPI_Datatype srctype,
                               void *dst, int dstcount, MPI_Datatype dsttype);

/* The same type map (and lower bound and extent) as type, described by the
 * constructor tree with the lowest penalty pcoll can find (datatype
 * performance guidelines paper): contiguous, vectors, two-level vectors,
 * vectors with head and tail blocks, indexed_block, indexed, struct.  The
 * result is uncommitted; the caller commits and frees it. */
PCOLL_API int pcoll_type_normalize(MPI_Datatype type, MPI_Datatype *newtype);
/* The guidelines paper's penalty of type's constructor tree: contiguous 0,
 * vector 0, indexed_block n, indexed 2n, struct 3n (n blocks), plus O(1) per
 * constructor, multiplied through nesting and summed over struct members. */
PCOLL_API int pcoll_type_penalty(MPI_Datatype type, long *penalty);

/* ---------------------------------------------------------------------------
 * Introspection of the algorithm tables (used by tests, benchmarks and
 * documentation).  collective is "alltoall", "reduce_scatter" (both forms
 * share the table), "neighbor_alltoall" (also "neighbor_alltoallv" and
 * "neighbor_alltoallw": one table), ...; index counts from 0.  Returns
 * the name of algorithm `index` or NULL past the end.
 * ------------------------------------------------------------------------- */
PCOLL_API const char *pcoll_algorithm_name(const char *collective, int index);
PCOLL_API const char *pcoll_algorithm_description(const char *collective, int index);

/* Bytes currently allocated by pcoll in this process (plans, scratch,
 * auxiliary buffers, caches), and the peak since the last reset
 * (pcoll_mem_reset_peak). */
PCOLL_API long long pcoll_mem_current(void);
PCOLL_API long long pcoll_mem_peak(void);
PCOLL_API void pcoll_mem_reset_peak(void);

#ifdef __cplusplus
}
#endif
#endif /* PCOLL_H */
