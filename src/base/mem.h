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

#endif
