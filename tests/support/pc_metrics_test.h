/* Test support for the metric kernels' tests: two metric results compared cell by cell. */
#ifndef PC_METRICS_TEST_H
#define PC_METRICS_TEST_H

#include "precheck/compare/metrics.h"

/* Fails the test unless a and b hold the same bits in every cell (any NaN equals any NaN), the
 * same cosine verdict and message and the same relative-error ratios; prints each cell that
 * differs, under what. */
void pc_test_assert_same_metrics(const pc_metrics_result *a, const pc_metrics_result *b,
                                 const char *what);

#endif
