/*
 * quiet.c -- the library prints nothing unless asked (registered for np 1
 * and 2 only, see tests/CMakeLists.txt; outside the test_*.c pattern on
 * purpose).
 *
 * Failing calls (a NULL plan pointer, a negative count, an unknown algorithm
 * named by info, a negative count in a one-shot call) are made with this
 * process's stderr redirected to a temporary file:
 *   - PCOLL_VERBOSE unset: nothing reaches stderr, and pcoll_last_error()
 *     still explains the failure;
 *   - the info key pcoll_verbose=1: the message is printed (for failures
 *     found once the options are read; the NULL plan pointer is refused
 *     before that, so only PCOLL_VERBOSE prints it);
 *   - setenv("PCOLL_VERBOSE", "1"): every message is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

enum { CAPTURE_MAX = 8192 };

static int saved_fd = -1;
static FILE *capture_file;
static char captured[CAPTURE_MAX];

/* From here on, this process's stderr (fd 2) goes to a temporary file. */
static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    saved_fd = dup(STDERR_FILENO);
    if (!capture_file || saved_fd < 0 || dup2(fileno(capture_file), STDERR_FILENO) < 0) {
        pt_fail("cannot redirect stderr");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Back to the real stderr; captured holds what was written meanwhile. */
static const char *capture_end(void)
{
    size_t n;
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    rewind(capture_file);
    n = fread(captured, 1, sizeof captured - 1, capture_file);
    captured[n] = '\0';
    fclose(capture_file);
    return captured;
}

typedef enum { NULL_PLAN, NEGATIVE_COUNT, UNKNOWN_ALGORITHM, ONESHOT_NEGATIVE, NCALLS } call_t;

static const struct {
    const char *name;
    const char *explains; /* pcoll_last_error() contains it */
    int before_options;   /* refused before the info keys are read */
} calls[NCALLS] = {
    [NULL_PLAN] = {"pcoll_alltoall_init with a NULL plan pointer", "plan is NULL", 1},
    [NEGATIVE_COUNT] = {"pcoll_alltoall_init with a negative count", "is negative", 0},
    [UNKNOWN_ALGORITHM] = {"pcoll_alltoall_init with pcoll_algorithm=nonsense", "nonsense", 0},
    [ONESHOT_NEGATIVE] = {"pcoll_alltoall with a negative count", "is negative", 0},
};

static int call(call_t which, MPI_Info info)
{
    int sb[16], rb[16];
    pcoll_plan_t *plan = NULL;
    MPI_Info mine = MPI_INFO_NULL;
    int rc;
    if (which == UNKNOWN_ALGORITHM) {
        if (info == MPI_INFO_NULL)
            MPI_Info_create(&mine);
        else
            MPI_Info_dup(info, &mine);
        MPI_Info_set(mine, "pcoll_algorithm", "nonsense");
        info = mine;
    }
    switch (which) {
    case NULL_PLAN:
        rc = pcoll_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD, info, NULL);
        break;
    case NEGATIVE_COUNT:
    case UNKNOWN_ALGORITHM:
        rc = pcoll_alltoall_init(sb, which == NEGATIVE_COUNT ? -1 : 1, MPI_INT, rb,
                                 which == NEGATIVE_COUNT ? -1 : 1, MPI_INT, MPI_COMM_WORLD, info,
                                 &plan);
        break;
    default:
        rc = pcoll_alltoall(sb, -1, MPI_INT, rb, -1, MPI_INT, MPI_COMM_WORLD);
        break;
    }
    if (mine != MPI_INFO_NULL)
        MPI_Info_free(&mine);
    if (plan)
        pcoll_plan_free(&plan);
    return rc;
}

/* Make every call with stderr captured; printed: whether each message must
 * (1) or must not (0) appear on stderr. */
static void run_calls(const char *how, MPI_Info info, int verbose_env)
{
    for (int i = 0; i < NCALLS; i++) {
        /* The one-shot call takes no info: pcoll_verbose cannot reach it. */
        int by_info = info != MPI_INFO_NULL && !calls[i].before_options && i != ONESHOT_NEGATIVE;
        int printed = verbose_env || by_info;
        const char *err, *out;
        int rc;
        pt_case("%s, %s", how, calls[i].name);
        capture_begin();
        rc = call((call_t)i, info);
        out = capture_end();
        err = pcoll_last_error();
        PT_CHECK(rc == PCOLL_ERR_ARG, "returned %s, expected ERR_ARG", pcoll_err_name(rc));
        PT_CHECK(err && strstr(err, calls[i].explains),
                 "pcoll_last_error() is \"%s\", expected it to mention \"%s\"", err ? err : "",
                 calls[i].explains);
        if (printed) {
            PT_CHECK(strstr(out, "pcoll (rank") && err && strstr(out, err),
                     "stderr holds \"%s\", expected the message \"%s\"", out, err ? err : "");
        } else {
            PT_CHECK(out[0] == '\0', "stderr holds \"%s\", expected nothing", out);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Info verbose;
    pt_init(&argc, &argv);
    /* Whatever the suite's environment: no verbosity, no algorithm chosen
     * by the environment (it would override pcoll_algorithm=nonsense). */
    unsetenv("PCOLL_VERBOSE");
    unsetenv("PCOLL_ALGORITHM");
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");

    run_calls("quiet by default", MPI_INFO_NULL, 0);

    MPI_Info_create(&verbose);
    MPI_Info_set(verbose, "pcoll_verbose", "1");
    run_calls("info pcoll_verbose=1", verbose, 0);
    MPI_Info_free(&verbose);

    /* Asking by info holds for that call only. */
    run_calls("quiet again after a verbose call", MPI_INFO_NULL, 0);

    setenv("PCOLL_VERBOSE", "1", 1);
    run_calls("PCOLL_VERBOSE=1", MPI_INFO_NULL, 1);
    setenv("PCOLL_VERBOSE", "true", 1);
    run_calls("PCOLL_VERBOSE=true", MPI_INFO_NULL, 1);
    unsetenv("PCOLL_VERBOSE");

    run_calls("quiet again after PCOLL_VERBOSE", MPI_INFO_NULL, 0);
    return pt_finish();
}
