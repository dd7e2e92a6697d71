/* Private to precision_compare/: the parts of a details row name. */
#ifndef PC_PCMP_IMPL_H
#define PC_PCMP_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/io/msprobe_csv.h"

/* The parts of a details row name, split as msprobe does
 * (docs/msprobe-contract.md#precision-compare): pc_mcsv_pcmp_name_parse. */
typedef pc_mcsv_pcmp_name pcmp_name;

/* Test hook: the size of the filter that checks that each API's rows are consecutive (pcmp_run.c),
 * as log2 of its bits; 0 restores the default. A small one makes false positives common, so
 * that the exact check behind it is exercised. */
void pc_pcmp_test_seen_bits(unsigned log2_bits);

#endif
