/*
 * Run another program and wait for it (rank 0, after MPI_Finalize): the
 * relaunched native runs of --native-sweep and the plot script.  The child
 * inherits this process's environment; it only redirects its output and
 * execs, as is safe after fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int bench_spawn(char *const argv[], const char *out_path)
{
    pid_t pid;
    int status;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
        if (fd >= 0)
            dup2(fd, STDOUT_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
