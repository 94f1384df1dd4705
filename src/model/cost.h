/*
 * The alpha-beta cost model used by `auto` and by the radix choice (zero-copy
 * Bruck paper section 2, multicore paper II-B, reduce-scatter paper 4.1):
 * a message of n bytes costs alpha + beta*n, a local copy gamma per byte, and
 * building or walking a derived datatype delta per block it describes.
 *
 * Defaults are this machine class's shared-memory MPI (see docs/algorithms.md)
 * and can be replaced by measured values: PCOLL_COST_ALPHA, PCOLL_COST_BETA,
 * PCOLL_COST_GAMMA, PCOLL_COST_DELTA (seconds, seconds per byte, per byte, per
 * block), as printed by tools/pcoll-probe.
 */
#ifndef PCOLL_MODEL_COST_H
#define PCOLL_MODEL_COST_H

typedef struct pcoll__cost {
    double alpha;  /* s per message */
    double beta;   /* s per byte sent */
    double gamma;  /* s per byte copied locally */
    double delta;  /* s per block handled by a datatype */
    double cpu;    /* s of pcoll's own CPU per send or receive it starts */
    double ddt;    /* s per byte sent with a derived datatype, beyond beta (the
                      MPI's datatype engine: the same bytes as one contiguous
                      run cost beta alone) */
    double call;   /* s the MPI's own collective call costs beyond its messages
                      (its algorithm choice, requests, schedule) */
    double pcall;  /* the same for its persistent or non-blocking form */
    double rs_bytes; /* s per byte of the whole vector that the MPI's
                      reduce-scatter adds to recursive halving or a pairwise
                      exchange (Open MPI's grows like a reduce to one rank and
                      a scatter: 10x pcoll's ring at 512 KiB blocks, np 2;
                      MPICH 5's persistent MPI_Reduce_scatter_block_init on a
                      16-core node: 1.3e-10 to 9e-10 s/B over circulant at
                      4-64 KiB blocks, np 3-16) */
    int defer;     /* a plan of the MPI's collective that every rank made
                      together makes the blocking call in its first wait or
                      test after a start instead of starting a persistent
                      request (core/native.c), so a started plan costs call,
                      not pcall: Open MPI 5, whose persistent collectives
                      cost more than its blocking ones at np 2 (8 B:
                      alltoall 2.28 against 2.14 us, reduce_scatter_block
                      4.04 against 2.23).  PCOLL_COST_DEFER (0 or 1). */
    int vself;     /* the MPI's alltoallv sends a rank's own block as a
                      message, after the others, not as a copy: MPICH 5 at
                      np 2, 64 KiB to 1 MiB per peer, 2.7-2.9x its
                      alltoallv without the own block, 2x its alltoall;
                      so does its alltoall's direct exchange up to
                      PCOLL__COST_VSELF_ALLTOALL_MAX bytes per peer (np 2,
                      16 / 32 KiB: 12.4 / 17.5 us, 14.2 at 64 KiB, where it
                      copies the block).  PCOLL_COST_VSELF (0 or 1). */
    int tested;    /* the MPI's non-blocking collectives complete sooner
                      when tested in a loop, as a plan of pcoll's `native`
                      is, than in the MPI's MPI_Wait: MPICH 5 at np 2,
                      MPI_Ialltoall of 8 B 0.64 us tested, 2.07 us waited
                      (Open MPI 5: the same, 0.29 us).  Where it is 0 the
                      drop-in's non-blocking calls that choose `native`
                      make the MPI's call themselves, no plan around it.
                      PCOLL_COST_TESTED (0 or 1). */
    int native_linear; /* the MPI's collective runs as a direct exchange at
                      every size: the non-blocking form a started plan uses
                      where the MPI has no persistent collectives (SMPI's
                      non-blocking collectives are linear exchanges) */
    double margin; /* a pcoll algorithm is chosen over the MPI's own collective
                      only when predicted faster by this fraction */
    double barrier; /* s a node barrier costs per rank of the node (every
                      rank's arrival on one cache line): PCOLL_COST_BARRIER,
                      else PCOLL__COST_NODE_BARRIER alpha under every MPI */
    double shm;    /* s per byte copied into or out of a node's shared segment
                      that another core wrote or will read, on a node of 16
                      ranks or more: PCOLL_COST_SHM, else PCOLL__COST_SHM;
                      pcoll__cost_shm gives it for a node of m ranks */
    int shm_set;   /* shm came from PCOLL_COST_SHM: measured on the user's
                      node, the same for every node size */
    double port;   /* share of alpha a message costs beyond a round's first one,
                      sent to another peer at the same time: its latency
                      overlaps, its overhead does not (LogP's o against L).
                      Between nodes PCOLL__COST_PORT_NETWORK (simulated on
                      fat-ib, P = 96, 8 B: 2.5 us per round of one message,
                      0.5 us more per further one); on one node, where the
                      CPUs copy every message, PCOLL__COST_PORT_NODE (np 3-16
                      on a 16-core node, MPICH: radix 3 beat 2 at np 3, 5, 6
                      and lost at np 7 and 16: a share above 1/2).
                      PCOLL_COST_PORT sets it; < 0: not set, select.h
                      decides by the shape. */
    double local;  /* share of alpha a message of the MPI's costs between two
                      ranks of one node (the neighbourhood all-to-alls on one
                      node, where `node` sends none), against the node
                      barrier's price: MPICH 5 1 (its neighbourhood call at
                      np 2, 4 edges of 8 B: 4.3 us); Open MPI 5 0.2 (0.12-0.3
                      us an edge, where `node`'s run of two ranks, priced
                      0.18 alpha, takes 0.14-0.21 us); any other MPI 0.2.
                      PCOLL_COST_LOCAL. */
} pcoll__cost_t;

#define PCOLL__COST_PORT_NETWORK 0.25
#define PCOLL__COST_PORT_NODE 0.75

/* The model parameters: defaults for the MPI in use (MPI_Get_library_version:
 * MPICH or Open MPI, measured with tools/pcoll-probe on a shared-memory node,
 * docs/algorithms.md), overridden by the environment: PCOLL_COST_ALPHA,
 * _BETA, _GAMMA, _DELTA, _CPU, _DDT, _CALL, _PCALL, _MARGIN, _BARRIER, _SHM,
 * _DEFER. */
pcoll__cost_t pcoll__cost_params(void);

/* The parameters for a plan whose native form would start a persistent or
 * non-blocking request (started != 0) instead of making the blocking call:
 * call becomes pcall, and without persistent collectives (persistent == 0)
 * the MPI's collective is its non-blocking form, taken for a direct
 * exchange (native_linear); but a plan made by every rank together
 * (together != 0) under defer makes the blocking call. */
pcoll__cost_t pcoll__cost_for(int started, int together, int persistent);

/* The MPI's own collectives, as the model sees them: the algorithms MPI
 * libraries choose (alltoall: Bruck with local copies for blocks of at most
 * PCOLL__COST_NATIVE_BRUCK_MAX bytes on 8 ranks or more, as MPICH and Open
 * MPI do, else a direct exchange; alltoallv: a direct exchange;
 * reduce-scatter: the better of recursive halving and the pairwise
 * exchange), without pcoll's CPU per message or datatype engine costs, plus
 * the MPI's cost per call.  With native_linear every one is a direct
 * exchange (reduce-scatter: the pairwise exchange). */
#define PCOLL__COST_NATIVE_BRUCK_MAX 256
#define PCOLL__COST_VSELF_ALLTOALL_MAX 32768
double pcoll__cost_native_alltoall(const pcoll__cost_t *c, int p, long long n);
double pcoll__cost_native_alltoallv(const pcoll__cost_t *c, int p, long long n);
double pcoll__cost_native_rs(const pcoll__cost_t *c, int p, double n);

/* Predicted time of radix-r Bruck (r = 2: Basic Bruck) for p ranks, n bytes a block. */
double pcoll__cost_bruck(const pcoll__cost_t *c, int p, long long n, int r);
/* Predicted time of a direct exchange (linear, scattered, pairwise). */
double pcoll__cost_direct(const pcoll__cost_t *c, int p, long long n);
/* Predicted time of Modified and Zero-copy Bruck. */
double pcoll__cost_bruck_modified(const pcoll__cost_t *c, int p, long long n);
double pcoll__cost_bruck_zerocopy(const pcoll__cost_t *c, int p, long long n);
/* Reduce-scatter of n bytes in all (reduce-scatter paper sections 4.1-4.4):
 * MST reduce + scatter, the ring (bucket) algorithm (prepost: receives
 * preposted and ready sends, alpha_light = alpha / 2), recursive halving. */
double pcoll__cost_rs_mst(const pcoll__cost_t *c, int p, double n);
double pcoll__cost_rs_ring(const pcoll__cost_t *c, int p, double n, int prepost);
double pcoll__cost_rs_halving(const pcoll__cost_t *c, int p, double n);
/* Träff's circulant reduce-scatter (reduce_scatter/circulant.c) at radix r,
 * and the radix in 2..PCOLL__COST_RS_RADIX_MAX it predicts fastest. */
#define PCOLL__COST_RS_RADIX_MAX 32
double pcoll__cost_rs_circulant(const pcoll__cost_t *c, int p, double n, int r);
int pcoll__cost_rs_circulant_radix(const pcoll__cost_t *c, int p, double n);
/* reduce_scatter node_ring (all ranks on one node; reduce_scatter/node_ring.c)
 * in chunks of at most chunk bytes per block: per chunk p flag hand-offs
 * (a cache line passed between two cores and a round of pcoll's executor),
 * each PCOLL__COST_NODE_FLAG alpha under MPICH (elsewhere, or with
 * PCOLL_COST_BARRIER set, the same share of the node barrier's cost: both
 * are pcoll's own cache-line traffic), and every block passed over p+1 times
 * (gamma per byte: p-1 reductions into the accumulator, a copy and one
 * reduction of the own block); no messages.  The share: on the 16-core
 * machine (MPICH 5, np 3-16) a hand-off took 0.55-0.65 us where a round of
 * circulant's messages took 2.0-2.3 us, on the 2-core VM (np 2) 0.33 us
 * against 1.2 us: 0.28 of a round both times. */
#define PCOLL__COST_NODE_FLAG 0.3
double pcoll__cost_rs_node_ring(const pcoll__cost_t *c, int p, double n, double chunk);
/* reduce_scatter node_direct (one node, short vectors;
 * reduce_scatter/node_direct.c): one node barrier, barrier per rank
 * (default PCOLL__COST_NODE_BARRIER alpha: on the 16-core machine 8 B
 * blocks took 1.07, 1.62, 2.30, 2.47 and 4.92 us at np 3, 5, 7, 8 and 16
 * when a run had a barrier and a split one: 0.15 p us, about 0.08 p a
 * barrier, where node_ring's hand-offs took 0.5 us each, which the model
 * charges 0.3 alpha), the vector copied once and p passes over a block. */
#define PCOLL__COST_NODE_BARRIER 0.09
double pcoll__cost_rs_node_direct(const pcoll__cost_t *c, int p, double n);

/* alltoall and alltoallv `hier` on one node of p ranks, blocks of n bytes
 * (hier/hier.c with N = 1: no messages): each rank copies its p blocks into
 * the shared segment and its p blocks out of it, pcoll__cost_shm(c, p) per
 * byte, and the node meets at `barriers` node barriers, barrier per rank
 * each (one where the segment exists twice and runs take the copies in
 * turn; else a barrier and a split one).  shm's default for a full node (s per byte): what hier's time grew
 * by per byte copied, alltoall at np 16 on 16 cores, MPICH, 8 -> 512 B:
 * 3.7 -> 10.9 us, 0.45 ns (docs/benchmarking.md, "np 16, MPICH, 16
 * cores"), measured while MPICH packed hier's merged copy-out runs a byte
 * at a time (they are memmoves now: datatype/copy.h, PCOLL__COPY_STRIDED),
 * so at 16 ranks it is high until measured again there; with it the
 * model's crossings at np 16 lie where that measurement put them (hier
 * ahead of every flat algorithm up to 512 B, predicted 10.3 us, measured
 * 10.9).  In the formulas of several nodes it also stands in for what the
 * model does not price (the node's link shared by its ranks, copies and
 * barriers that do not overlap the messages: docs/algorithms.md).
 *
 * A node's copies share its memory: while every rank of a node of m ranks
 * copies at once, a byte costs each about m times what one rank pays
 * alone: PCOLL__COST_SHM_RANK per rank of the node, up to PCOLL__COST_SHM.
 * At np 2 (2026-11-30, the 2-core VM, MPICH 5 and Open MPI 4.1 and 5)
 * hier's time grew 0.044-0.05 ns per byte copied from 8 to 32 KiB, where
 * the MPI's one remote block grew 0.155-0.21 ns/B against the model's
 * beta + gamma of 0.3: in the model's units 0.08 ns (2 ranks) puts hier's
 * crossings where they were measured (MPICH: hier ahead of scattered up to
 * 16 KiB, level at 32; Open MPI 5: ahead of its MPI_Alltoall up to 8 KiB,
 * level at 16).  From 12 ranks a node the value is PCOLL__COST_SHM (so the
 * simulated nodes of 12 and the 16-core node keep their choices).
 *
 * Copies that stay in the core's cache cost less: where a rank copies at
 * most PCOLL__COST_SHM_CACHED bytes one way in a run (bytes; its blocks
 * in, or out), a byte costs PCOLL__COST_SHM_CACHED_SHARE of the above.  At
 * np 2 (Open MPI 5, 2026-11-30) a kept one-shot alltoallv `hier` grew
 * 0.024 ns per byte copied from 128 B to 1 KiB a block (0.16 -> 0.25 us):
 * 0.3 of the 0.08 above, which put it within the margin of the MPI's
 * alltoallv (0.19-0.40 us) where it ran 1.2-2.1x faster.  At 16 ranks the
 * bound is blocks of 512 B, up to which hier was measured ahead of every
 * flat algorithm: no choice there changes.
 * PCOLL_COST_SHM, where set (pcoll-probe measures it from 1 B to 1 KiB a
 * block, in the cache), holds for every node size and every size. */
#define PCOLL__COST_SHM 4.5e-10
#define PCOLL__COST_SHM_RANK 4.0e-11
#define PCOLL__COST_SHM_CACHED 8192
#define PCOLL__COST_SHM_CACHED_SHARE 0.3
double pcoll__cost_shm(const pcoll__cost_t *c, int m, double bytes);

/* What a one-shot call kept by its shape pays for pcoll's checks of
 * arrays of p counts and displacements that changed since its last call
 * (the alltoallv; a repeat with the same arrays skips them): at np 2 under
 * MPICH 5 a call with new counts took 0.54 us against 0.2 for a repeat.
 * pcoll's own work, the same under every MPI: PCOLL__COST_ARGS +
 * p PCOLL__COST_ARGS_PEER seconds. */
/* A one-shot call that keeps the MPI's own (`native`) reaches it through
 * pcoll's path, a repeat forwarded (api/entry.c): about 350 instructions,
 * 0.02 us at np 2 (Open MPI's alltoallv of 4 B: 0.19 us forwarded against
 * 0.17 us called directly), which the program's own call does not pay. */
#define PCOLL__COST_FORWARD 2.0e-8
#define PCOLL__COST_ARGS 3.0e-7
#define PCOLL__COST_ARGS_PEER 2.0e-8
double pcoll__cost_args(int p);
double pcoll__cost_hier_node(const pcoll__cost_t *c, int p, long long n, int barriers);

/* Node-aware all-to-all (multicore paper II-A/B; alltoall `hier`): N nodes
 * of m ranks, `ports` of them sending (0: all), bundles (slots) of z bytes
 * between two nodes, radix-r Bruck between nodes (r >= N: one step).  Per
 * step: ceil(messages / ports) start-ups and the slots one port sends, their
 * unpacking but after the last step, a node barrier (alpha); plus copying p n
 * bytes in and out per rank and two more barriers. */
double pcoll__cost_hier(const pcoll__cost_t *c, int N, int m, int ports, long long z, int r);
/* The radix in [2, N] with the lowest predicted hier time, every step's bytes
 * charged to the node's one network link (cost.c says why). */
int pcoll__cost_hier_radix(const pcoll__cost_t *c, int N, int m, int ports, long long z);

/* Neighbourhood all-to-alls (select/neighbor.c), for the slowest rank: d
 * edges each way (the largest in- or out-degree of any rank), b bytes sent
 * or received (the most of any rank: d times the largest block where the
 * blocks have one size; less where they differ).  Per edge (the MPI's call,
 * `direct`): one message per edge, alpha each, and beta per byte (the
 * MPI's: plus its call; direct: plus pcoll's cpu per send and receive).
 * `node` (neighbor/node.c), N nodes of m ranks: the node sends to at most
 * min(N - 1, m d) other nodes, one message each, spread over its m ranks,
 * and as many arrive (alpha + 2 cpu each); the rank's b bytes still leave
 * the node (beta) and are copied twice through the shared segment (shm per
 * byte, as hier's copies: the edges within the node too, which send no
 * message); two node barriers (barrier per rank of the node each).  On
 * one node (N = 1) no message and no byte leaves it: the two copies and
 * one barrier (its runs take two copies of the parts in turn). */
double pcoll__cost_nbr_native(const pcoll__cost_t *c, int d, long long b);
double pcoll__cost_nbr_direct(const pcoll__cost_t *c, int d, long long b);
double pcoll__cost_nbr_node(const pcoll__cost_t *c, int N, int m, int d, long long b);
/* `multi` (hier/hier_neighbor.c) on a Cartesian grid of ndims dimensions:
 * per dimension one run of the node-aware engine with one step, as `node`
 * on the dimension's 2 edges (a node sends to at most min(N - 1, 2 m) other
 * nodes, spread over its m ranks; 2 n bytes leave and are copied twice) but
 * with three node barriers (the split one and two in the run).  Its messages
 * are those of `node` split by dimension and its barriers more, so it is
 * never predicted faster than `node`. */
double pcoll__cost_nbr_multi(const pcoll__cost_t *c, int N, int m, int ndims, long long n);

/* The radix in [2, p] with the lowest predicted radix-r Bruck time. */
int pcoll__cost_best_radix(const pcoll__cost_t *c, int p, long long n);

/* alltoallv `bruck_radix` for elements of n bytes on average: the messages
 * of radix-r Bruck (alpha + 2 cpu each), every hop's bytes sent and packed
 * (beta + gamma), every element copied out once (gamma) and each of those
 * plain copies, packing and unpacking, a step of the executor (delta per
 * element hop: at np 16 on one node, twice that made auto take
 * padded_bruck, 1.5x slower at 8-16 B); and the radix in [2, p] it is
 * predicted fastest with. */
double pcoll__cost_bruck_v(const pcoll__cost_t *c, int p, double n, int r);
int pcoll__cost_best_radix_v(const pcoll__cost_t *c, int p, double n);

#endif
