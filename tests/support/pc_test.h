/* Shared test support: cmocka in the order it needs, plus small helpers used by many tests. */
#ifndef PC_TEST_H
#define PC_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Asserts that two doubles have the same bits (so NaN == NaN and -0 != +0). */
#define pc_assert_same_f64(a, b) assert_true(pc_test_same_f64((a), (b)))

int pc_test_same_f64(double a, double b);

/* Makes a fresh empty directory under $TMPDIR (or /tmp) and returns its path in buf. */
const char *pc_test_tmpdir(char *buf, size_t size);

#endif
