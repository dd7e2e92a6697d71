/* End-to-end helpers of the run_ut tests: result CSV rows, byte-identical files, and the
 * conformance of per-API statuses with msprobe's own CSVs for the bundled real dumps. */
#ifndef PC_RUN_UT_TEST_H
#define PC_RUN_UT_TEST_H

#include <stddef.h>

typedef struct pc_test_status_row {
    char name[128];
    char fwd[16], bwd[16];
    char msg[256];
} pc_test_status_row;

/* Fails the test, naming the first differing byte, unless the two files are the same. */
void pc_test_assert_same_file(const char *a, const char *b);

/* Fails the test unless the two output folders hold the same two run_ut CSVs (one
 * accuracy_checking_result_* and one accuracy_checking_details_* each, byte for byte). */
void pc_test_assert_same_csvs(const char *dir_a, const char *dir_b);

/* Fails the test, showing the log, unless the log file holds text. */
void pc_test_expect_in_log(const char *log, const char *text);

/* The rows of a result CSV (at most max); returns how many. */
int pc_test_read_results(const char *path, pc_test_status_row *rows, int max);

const pc_test_status_row *pc_test_find_row(const pc_test_status_row *rows, int n, const char *name);

/*
 * Where precheck's status differs from msprobe's on a bundled dump, and why. Any difference
 * not listed fails pc_test_conformance, and so does a listed one that no longer happens (so
 * the table stays true).
 */
typedef struct pc_test_known_diff {
    const char *dump, *api; /* api may end in '*': every API with that prefix */
    const char *fwd, *bwd;  /* precheck's statuses; fwd NULL: msprobe's */
    const char *why;
} pc_test_known_diff;

/* Runs `run_ut` on the bundled dump (env and extra as pc_test_run_precheck takes them) and
 * compares its statuses with msprobe's: returns how many of the dump's APIs have msprobe's
 * statuses (*total, may be NULL: of how many); table ends with a NULL dump. */
int pc_test_conformance(const char *env, const char *dump, const char *extra,
                        const pc_test_known_diff *table, int *total);

/* pc_test_conformance that keeps its run's output folder: its path in out (size bytes), for a
 * test that compares the same run's CSVs with another's instead of running it again. */
int pc_test_conformance_in(const char *env, const char *dump, const char *extra,
                           const pc_test_known_diff *table, int *total, char *out, size_t size);

#endif
