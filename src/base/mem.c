/*
 * Counted allocations.  Each block carries a header holding its size so that
 * pcoll__free can subtract it; the counters are per process, shared by every
 * thread: C11 atomics (relaxed: they order nothing else), the peak raised by
 * a compare-and-swap loop so that no thread's maximum is lost.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "pcoll.h"

typedef union header {
    size_t bytes;
    max_align_t align;
} header_t;

static atomic_llong mem_current, mem_peak;

static void count(long long delta)
{
    long long now =
        atomic_fetch_add_explicit(&mem_current, delta, memory_order_relaxed) + delta;
    long long peak = atomic_load_explicit(&mem_peak, memory_order_relaxed);
    /* A failed exchange reloads peak; stop once it is at least now. */
    while (now > peak && !atomic_compare_exchange_weak_explicit(&mem_peak, &peak, now,
                                                                memory_order_relaxed,
                                                                memory_order_relaxed))
        ;
}

void *pcoll__malloc(size_t bytes)
{
    header_t *h;
    if (bytes == 0 || bytes > (size_t)-1 - sizeof *h)
        return NULL;
    h = malloc(sizeof *h + bytes);
    if (!h)
        return NULL;
    h->bytes = bytes;
    count((long long)bytes);
    return h + 1;
}

void *pcoll__calloc(size_t n, size_t size)
{
    void *p;
    if (size != 0 && n > (size_t)-1 / size)
        return NULL;
    p = pcoll__malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *pcoll__realloc(void *p, size_t bytes)
{
    header_t *h, *nh;
    if (!p)
        return pcoll__malloc(bytes);
    if (bytes == 0 || bytes > (size_t)-1 - sizeof *h)
        return NULL;
    h = (header_t *)p - 1;
    nh = realloc(h, sizeof *nh + bytes);
    if (!nh)
        return NULL;
    count((long long)bytes - (long long)nh->bytes);
    nh->bytes = bytes;
    return nh + 1;
}

void pcoll__free(void *p)
{
    header_t *h;
    if (!p)
        return;
    h = (header_t *)p - 1;
    count(-(long long)h->bytes);
    free(h);
}

void pcoll__mem_note(long long bytes)
{
    count(bytes);
}

long long pcoll_mem_current(void)
{
    return atomic_load_explicit(&mem_current, memory_order_relaxed);
}

long long pcoll_mem_peak(void)
{
    return atomic_load_explicit(&mem_peak, memory_order_relaxed);
}

/* With other threads allocating meanwhile, the peak restarts from the
 * current value as read here. */
void pcoll_mem_reset_peak(void)
{
    atomic_store_explicit(&mem_peak, atomic_load_explicit(&mem_current, memory_order_relaxed),
                          memory_order_relaxed);
}

#ifdef PCOLL__TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char hand_over;

void pcoll__mem_handed_back(void)
{
    __tsan_release(&hand_over);
}

void pcoll__mem_handed_over(void)
{
    __tsan_acquire(&hand_over);
}
#endif
