/* Shared test support: cmocka in the order it needs, plus small helpers used by many tests. */
#ifndef PC_TEST_H
#define PC_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* snprintf into the array buf, asserting that it fits (using the result also keeps gcc's
 * format-truncation warning quiet). */
#define PC_TEST_FMT(buf, ...)                                                                      \
    assert_true(snprintf((buf), sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* Asserts that two doubles have the same bits (so NaN == NaN and -0 != +0). */
#define pc_assert_same_f64(a, b) assert_true(pc_test_same_f64((a), (b)))

int pc_test_same_f64(double a, double b);

/* Makes a fresh empty directory under $TMPDIR (or /tmp) and returns its path in buf. */
const char *pc_test_tmpdir(char *buf, size_t size);

/* Runs the precheck binary in the shell: "<env> precheck <args>", env being assignments such
 * as "PRECHECK_TEST_FAULT=crash:X" or NULL; stdout and stderr go to log (NULL: discarded).
 * Asserts that it exited, and returns its exit status. */
int pc_test_run_precheck(const char *env, const char *args, const char *log);
/* pc_test_run_precheck that must exit 0: otherwise the test fails, showing the log. */
void pc_test_run_precheck_ok(const char *env, const char *args, const char *log);
/* The README's quick start on the bundled bf16 GPT dump, in the folder work: run_ut on the
 * replay backend with -save_error_data into work/npu, run_ut on the cpu backend into work/gpu,
 * api_precision_compare of the two into work/npu, then report of work/npu into page. The
 * commands' output goes to work/precheck.log; one that fails fails the test. */
void pc_test_quick_start(const char *work, const char *page);

/* The path of the one file in dir whose name starts with prefix; fails the test when there is
 * none or more than one. */
void pc_test_find_file(const char *dir, const char *prefix, char *out, size_t size);

/* The whole file as a NUL-terminated malloc'd buffer (fails the test when it cannot be read);
 * its length in *len when len is not NULL. */
char *pc_test_slurp(const char *path, size_t *len);

/* Everything written to the stream f (a tmpfile, say) as a NUL-terminated malloc'd buffer; it
 * flushes f, reads it from the start and leaves it at its end. Fails the test when it cannot be
 * read. */
char *pc_test_read_stream(FILE *f);

/* Writes text (pc_test_write_file) or n bytes of data to path, replacing the file; fails the
 * test on any error, the close's included. */
void pc_test_write_file(const char *path, const char *text);
void pc_test_write_bytes(const char *path, const void *data, size_t n);

/* Whether the file holds text. */
int pc_test_file_contains(const char *path, const char *text);

/* The Python whose PyTorch the torch-backend tests use: $PRECHECK_TEST_PYTHON, else Debian's
 * /usr/bin/python3, when it imports torch. NULL when it cannot (the test then skips) -- unless
 * PRECHECK_REQUIRE_TORCH=1 (tests/run.sh, CI): then the test fails, so CI never skips them.
 * PRECHECK_TEST_TORCH=0 skips them in any case (tests/run.sh's clang stage). */
const char *pc_test_torch_python(void);

/* Whether the tests run light (PRECHECK_TEST_LIGHT=1: tests/run.sh's ASan+UBSan stage): a test
 * that repeats one code path over several inputs (the same run_ut on each bundled dump, say)
 * runs each path once, on the inputs that reach it, and leaves the repetitions, which check
 * results rather than memory, to the stages that run it whole. A test that does so says so on
 * stdout. */
int pc_test_light(void);

/* Debian's chromium for the browser tests: its path, or NULL when it is not installed (the test
 * then skips); with PRECHECK_REQUIRE_CHROMIUM=1 (tests/run.sh, CI) a missing browser fails the
 * test instead. Looked up once. */
const char *pc_test_chromium(void);

#endif
