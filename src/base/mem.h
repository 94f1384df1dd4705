/* Counted allocations: every byte pcoll allocates goes through these so tests
 * and benchmarks can report current and peak use (pcoll_mem_*).  Safe from
 * any thread: the process-wide counters are atomic. */
#ifndef PCOLL_BASE_MEM_H
#define PCOLL_BASE_MEM_H

#include <stddef.h>

void *pcoll__malloc(size_t bytes);           /* NULL on failure or bytes == 0 */
void *pcoll__calloc(size_t n, size_t size);  /* zeroed */
void *pcoll__realloc(void *p, size_t bytes);
void pcoll__free(void *p);                   /* NULL-safe */
/* Count bytes that MPI allocated for pcoll (shared windows): +bytes when
 * allocated, -bytes when freed. */
void pcoll__mem_note(long long bytes);

/* ThreadSanitizer builds: address ranges change hands between threads behind
 * TSan's back.  A range one thread gives back (munmap, MPI_Win_free) may come
 * back to another thread as a new shared window, mapped inside the MPI where
 * TSan is told not to look (tests/tsan.supp), so TSan would pair the old
 * owner's accesses with the new owner's first writes.  Whoever gives a range
 * back calls pcoll__mem_handed_back() first; whoever is handed a range by
 * the MPI calls pcoll__mem_handed_over() before touching it.  One object of
 * the library's orders the two.  Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#define PCOLL__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCOLL__TSAN 1
#endif
#endif
#ifdef PCOLL__TSAN
void pcoll__mem_handed_back(void);
void pcoll__mem_handed_over(void);
#else
static inline void pcoll__mem_handed_back(void) {}
static inline void pcoll__mem_handed_over(void) {}
#endif

#endif
