/*
 * The library's communicator of this process alone (see self.h).
 *
 * Threads: made by the first thread that asks, under make_lock, and
 * published by ready (release/acquire); freed by the thread that tears the
 * library down (MPI_Finalize, or the last context going under sessions),
 * when no other thread uses it.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "base/pmpi.h"
#include "datatype/self.h"

static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int ready;
static MPI_Comm self = MPI_COMM_NULL;

/* A communicator of this process alone from from's group (sessions: the
 * group and the communicator belong to from's session). */
static int self_from_group(MPI_Comm from, MPI_Comm *out)
{
#ifndef PCOLL__HAVE_SESSIONS
    (void)from, (void)out;
    return MPI_ERR_OTHER;
#else
    MPI_Group all, one;
    int rank, err;
    if (MPI_Comm_rank(from, &rank) != MPI_SUCCESS || MPI_Comm_group(from, &all) != MPI_SUCCESS)
        return MPI_ERR_COMM;
    err = MPI_Group_incl(all, 1, &rank, &one);
    MPI_Group_free(&all);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Comm_create_from_group(one, "org.pcoll.self", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                     out);
    MPI_Group_free(&one);
    return err;
#endif
}

int pcoll__self_make(MPI_Comm from)
{
    int init = 0, err = MPI_SUCCESS;
    if (atomic_load_explicit(&ready, memory_order_acquire))
        return PCOLL_SUCCESS;
    pthread_mutex_lock(&make_lock);
    if (!atomic_load_explicit(&ready, memory_order_relaxed)) {
        MPI_Initialized(&init);
        if (init) {
            err = PCOLL__MPI(Comm_dup)(MPI_COMM_SELF, &self);
            if (err == MPI_SUCCESS)
                err = MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
        } else {
            err = self_from_group(from, &self);
        }
        if (err == MPI_SUCCESS)
            atomic_store_explicit(&ready, 1, memory_order_release);
        else if (self != MPI_COMM_NULL)
            MPI_Comm_free(&self);
    }
    pthread_mutex_unlock(&make_lock);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

MPI_Comm pcoll__self(void)
{
    int init = 0, fini = 0;
    if (atomic_load_explicit(&ready, memory_order_acquire))
        return self;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (init && !fini && pcoll__self_make(MPI_COMM_SELF) == PCOLL_SUCCESS)
        return self;
    return MPI_COMM_NULL;
}

void pcoll__self_free(void)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        return;
    atomic_store_explicit(&ready, 0, memory_order_release);
    MPI_Comm_free(&self);
}
