/*
 * A tuning rules file (docs/tuning.md) for the tests of an alltoallv shape
 * decided again: `hier` for blocks up to 64 B and `native` above, on
 * communicators of `size` ranks.  Shared by tests/dropin/dropin_recheck.c
 * and tests/mpi/test_oneshot_shape_v.c; header only (the drop-in tests link
 * nothing but MPI).
 */
#ifndef PCOLL_TESTS_DROPIN_RULES_FILE_H
#define PCOLL_TESTS_DROPIN_RULES_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Write the file under $TMPDIR (else /tmp) with a fresh name into path
 * (len bytes); 0 on success. */
static int rules_file_write(char *path, size_t len, int size)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    FILE *f;
    int fd;
    snprintf(path, len, "%s/pcoll-recheck-XXXXXX", dir);
    if ((fd = mkstemp(path)) < 0)
        return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        return -1;
    }
    fprintf(f,
            "{\"pcoll_tuning\": 1, \"mpi\": \"any\", \"host\": \"test\",\n \"rules\": [\n"
            "  {\"collective\": \"alltoallv\", \"comm_size\": [%d, %d], \"bytes\": [0, 64],"
            " \"algorithm\": \"hier\"},\n"
            "  {\"collective\": \"alltoallv\", \"comm_size\": [%d, %d], \"bytes\": [65, "
            "1099511627776], \"algorithm\": \"native\"}\n ]}\n",
            size, size, size, size);
    return fclose(f) == 0 ? 0 : -1;
}

#endif
