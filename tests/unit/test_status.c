/*
 * test_status.c -- the status code table (no MPI calls).
 *
 * Every code of PCOLL_STATUS_MAP: 0 (SUCCESS) or negative, distinct, with a
 * distinct non-empty message and a name equal to the table's; any other
 * value is "UNKNOWN" / "unknown status".
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pcoll.h"

static int passed, failed;

static void check(int ok, const char *what, long detail)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s (%ld)\n", what, detail);
}

static const struct {
    int code;
    const char *name;
    const char *msg;
} codes[] = {
#define CODE_(name, value, msg) {PCOLL_##name, #name, msg},
    PCOLL_STATUS_MAP(CODE_)
#undef CODE_
};
enum { NCODES = sizeof codes / sizeof codes[0] };

static void test_known_codes(void)
{
    check(PCOLL_SUCCESS == 0, "PCOLL_SUCCESS is 0", PCOLL_SUCCESS);
    check(NCODES >= 8, "at least SUCCESS and the seven ERR_ codes", NCODES);
    for (int i = 0; i < NCODES; i++) {
        int c = codes[i].code;
        const char *msg = pcoll_strerror(c), *name = pcoll_err_name(c);
        check(c <= 0, "code is 0 or negative", c);
        check((c == 0) == (strcmp(codes[i].name, "SUCCESS") == 0), "only SUCCESS is 0", c);
        check(msg != NULL && msg[0] != '\0', "pcoll_strerror is non-empty", c);
        check(msg != NULL && strcmp(msg, codes[i].msg) == 0, "pcoll_strerror is the table's",
              c);
        check(name != NULL && strcmp(name, codes[i].name) == 0, "pcoll_err_name is the table's",
              c);
        check(strcmp(name, "UNKNOWN") != 0, "a known code is not UNKNOWN", c);
        for (int j = 0; j < i; j++) {
            check(codes[j].code != c, "codes are distinct", c);
            check(strcmp(pcoll_strerror(codes[j].code), msg) != 0, "messages are distinct", c);
            check(strcmp(pcoll_err_name(codes[j].code), name) != 0, "names are distinct", c);
        }
    }
}

static void test_named_values(void)
{
    static const int errs[] = {PCOLL_ERR_ARG,      PCOLL_ERR_NOMEM,    PCOLL_ERR_MPI,
                               PCOLL_ERR_UNSUPPORTED, PCOLL_ERR_STATE, PCOLL_ERR_MISMATCH,
                               PCOLL_ERR_INTERNAL};
    static const char *const names[] = {"ERR_ARG",   "ERR_NOMEM",    "ERR_MPI", "ERR_UNSUPPORTED",
                                        "ERR_STATE", "ERR_MISMATCH", "ERR_INTERNAL"};
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        check(errs[i] < 0, "every ERR_ code is negative", errs[i]);
        check(strcmp(pcoll_err_name(errs[i]), names[i]) == 0, names[i], errs[i]);
    }
    check(strcmp(pcoll_err_name(PCOLL_SUCCESS), "SUCCESS") == 0, "SUCCESS's name", 0);
}

static void test_unknown_codes(void)
{
    static const int unknown[] = {1, 2, 12345, -12345, -1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        int c = unknown[i], known = 0;
        for (int j = 0; j < NCODES; j++)
            known |= codes[j].code == c;
        if (known)
            continue;
        check(strcmp(pcoll_err_name(c), "UNKNOWN") == 0, "unknown code's name is UNKNOWN", c);
        check(strcmp(pcoll_strerror(c), "unknown status") == 0,
              "unknown code's message is \"unknown status\"", c);
    }
    /* The first value below the most negative code is unknown too. */
    int lowest = 0;
    for (int j = 0; j < NCODES; j++)
        lowest = codes[j].code < lowest ? codes[j].code : lowest;
    check(strcmp(pcoll_err_name(lowest - 1), "UNKNOWN") == 0, "one below the lowest code",
          lowest - 1);
}

int main(void)
{
    test_known_codes();
    test_named_values();
    test_unknown_codes();
    check(pcoll_last_error() != NULL && pcoll_last_error()[0] == '\0',
          "pcoll_last_error() is \"\" before any error", 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
