/*
 * harness.h -- the small test harness shared by every tests/mpi/test_*.c.
 *
 * A test is a sequence of cases.  pt_case() opens a case and names its
 * context (algorithm, count, types, communicator, mode); every check inside
 * it that fails prints one line
 *
 *     rank R: <what> peer P index I expected E got G [context]
 *
 * and marks the case failed on this rank.  Checks made outside any case count
 * as cases of their own.  pt_finish() combines the verdicts of all ranks (a
 * case fails if it failed anywhere), prints "N passed, N failed" on rank 0,
 * finalizes MPI and returns the exit status, the same on every rank.
 *
 * Communication calls whose failure would leave the peers blocked (pcoll_wait,
 * the one-shot calls) go through PT_REQUIRE, which prints and aborts the job
 * instead of letting it hang.
 *
 * Buffers are described by a layout (an MPI datatype plus the harness's own
 * list of its primitive elements), poisoned with PT_POISON bytes, and checked
 * both element by element and for bytes outside the type map that changed.
 */
#ifndef PT_HARNESS_H
#define PT_HARNESS_H

#include <stddef.h>

#include <mpi.h>

#include "pcoll.h"

#define PT_POISON 0xA5
#define PT_MAX_ELEM 4
#define PT_GUARD 64 /* poisoned bytes before and after every test buffer */

extern int pt_rank; /* in MPI_COMM_WORLD */
extern int pt_size;
extern int pt_quiet; /* PCOLL_TEST_QUIET is set: no progress notes */

/* MPI_Init, world rank and size, quiet flag. */
void pt_init(int *argc, char ***argv);
/* The same with MPI_Init_thread; returns the thread level provided. */
int pt_init_thread(int *argc, char ***argv, int required);
/* Close the last case, agree on the verdicts over MPI_COMM_WORLD, print the
 * summary on rank 0, MPI_Finalize; returns 0 when no case failed anywhere,
 * 1 otherwise (on every rank). */
int pt_finish(void);

/* Open a case (closing the previous one); the printf-style text is its
 * context.  pt_skip marks the open case skipped (why is printed once). */
void pt_case(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void pt_case_end(void);
void pt_skip(const char *why);
const char *pt_context(void);
/* Progress note from rank 0 unless quiet. */
void pt_note(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Record a failure of the open case (or of a stand-alone check) and print
 * "rank R: <message> [context]".  Always returns 0. */
int pt_fail(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Returns ok; on !ok records a failure with the printf-style message. */
int pt_check_(int ok, const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define PT_CHECK(cond, ...) pt_check_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* One element: prints "what peer P index I expected E got G". */
int pt_check_elem(const char *what, int peer, long index, double expected, double got);
/* A return code: prints the expected and actual names and pcoll_last_error(). */
int pt_check_rc_(int rc, int expected, const char *what, const char *file, int line);
#define PT_RC(call, expected) pt_check_rc_((call), (expected), #call, __FILE__, __LINE__)
#define PT_OK(call) PT_RC(call, PCOLL_SUCCESS)
/* Like PT_OK, but a failure aborts the whole job (the peers may be blocked). */
void pt_require_(int rc, const char *what, const char *file, int line);
#define PT_REQUIRE(call) pt_require_((call), #call, __FILE__, __LINE__)
/* An MPI call that must succeed (abort otherwise). */
void pt_mpi_(int rc, const char *what, const char *file, int line);
#define PT_MPI(call) pt_mpi_((call), #call, __FILE__, __LINE__)

/* pcoll_test until the run is done (PT_REQUIRE on every call), yielding the
 * processor between calls so that oversubscribed peers can progress. */
void pt_test_loop(pcoll_plan_t *plan);
/* Two runs of a persistent plan with rank 0 a run ahead: the other ranks
 * start run 0 and wait for it only after rank 0 has finished it and
 * started run 1 (a node plan that let run 1 write shared memory that run 0
 * has still to read fails here).  For plans whose run needs of a rank,
 * after its pcoll_start, only a node barrier's arrival (one-node plans of
 * one barrier): others would wait for the ranks blocked in MPI_Recv.
 * prepare(run, arg): the run's input, its output poisoned; check(run, arg):
 * its result. */
void pt_run_ahead(pcoll_plan_t *plan, void (*prepare)(int run, void *arg),
                  void (*check)(int run, void *arg), void *arg);
/* One run of plan when rc (its init's code) is PCOLL_SUCCESS and plan is
 * not NULL: start, then wait.  Returns the first failing code, else rc. */
int pt_run(int rc, pcoll_plan_t *plan);

/* ---- values -------------------------------------------------------------- */

/* The closed-form value that rank src stores at run `run` in the element at
 * byte offset off of its send buffer (off relative to the buffer pointer, so
 * a receiver can tell sender, block, item, element and run apart).  An
 * integer below 2^30, exact as int and as double, never equal to poison. */
double pt_val(int src, long off, int run);

/* ---- layouts and buffers -------------------------------------------------- */

typedef struct pt_layout {
    const char *name;
    MPI_Datatype type;             /* committed; freed by pt_layout_free */
    int nelem;                     /* primitive elements per item */
    MPI_Aint lb, extent;           /* as MPI_Type_get_extent reports them */
    MPI_Aint disp[PT_MAX_ELEM];    /* byte offset of each element, type map order */
    char kind[PT_MAX_ELEM];        /* 'i' int, 'd' double */
    int owned;                     /* derived type that pt_layout_free frees */
} pt_layout;

enum pt_layout_kind {
    PT_L_INT,     /* MPI_INT */
    PT_L_DOUBLE,  /* MPI_DOUBLE */
    PT_L_VEC,     /* 2 doubles, stride 2, resized to extent 4 doubles (gaps) */
    PT_L_OVERLAP, /* 2 doubles, stride 2, resized to extent 1 double: item i
                     and item i+2 share an element (legal for sending only) */
    PT_L_NEGLB,   /* 1 double, resized to lb -8, extent 24 */
    PT_L_STRUCT_A, /* {int @0; double @8}, extent 24 */
    PT_L_STRUCT_B, /* {int @12; double @-8}, lb -16, extent 40 */
    PT_L_COUNT
};
/* Build, commit and self-check (size, extent against MPI) a layout. */
void pt_layout_make(pt_layout *lay, enum pt_layout_kind kind);
void pt_layout_free(pt_layout *lay);
/* Byte offset of element e of item `item` relative to the buffer pointer. */
MPI_Aint pt_elem_off(const pt_layout *lay, long item, int e);

typedef struct pt_buf {
    unsigned char *alloc; /* whole allocation, guards included */
    size_t len;
    char *base; /* the pointer handed to MPI / pcoll */
    const pt_layout *lay;
    long nitems;
} pt_buf;

/* A buffer for nitems items of lay, with PT_GUARD bytes around the span the
 * items (and the type's lb/ub) cover, entirely poisoned. */
void pt_buf_alloc(pt_buf *b, const pt_layout *lay, long nitems);
void pt_buf_free(pt_buf *b);
void pt_buf_poison(pt_buf *b);
/* Element k (k = item * nelem + e) of the buffer. */
void pt_put(const pt_buf *b, long k, double value);
double pt_get(const pt_buf *b, long k);
MPI_Aint pt_off(const pt_buf *b, long k);
/* Every byte outside the type map still poison?  Reports the first few that
 * changed; returns the number of changed bytes. */
long pt_check_untouched(const pt_buf *b, const char *what);
/* Do the type-map bytes of two buffers of the same layout agree?  Reports the
 * first differing element; returns the number of differing elements. */
long pt_compare(const pt_buf *got, const pt_buf *ref, const char *what);

void pt_poison(void *p, size_t bytes);

/* ---- communicators ------------------------------------------------------- */

enum pt_comm_kind {
    PT_C_WORLD,    /* MPI_COMM_WORLD itself */
    PT_C_REVERSED, /* world with ranks in reverse order */
    PT_C_MOD3,     /* split by rank % 3, reversed within each part */
    PT_C_PARITY,   /* odd and even ranks */
    PT_C_HALVES,   /* rank < size/2 and the rest */
    PT_C_COUNT
};
const char *pt_comm_name(enum pt_comm_kind kind);
MPI_Comm pt_comm_make(enum pt_comm_kind kind);
void pt_comm_free(MPI_Comm *comm); /* leaves MPI_COMM_WORLD alone */

#endif
