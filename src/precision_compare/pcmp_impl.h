/* Private to precision_compare/: the parts of a details row name. */
#ifndef PC_PCMP_IMPL_H
#define PC_PCMP_IMPL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pcmp_name {
    bool valid;            /* 6 or 7 dot-separated parts */
    char api[256];         /* the basic API name ("matmul", "pre.api"); "" when invalid */
    size_t full_len;       /* bytes of "Type.api.idx" at the start of the name */
    const char *direction; /* "forward" / "backward" (not NUL-terminated), inside the name */
    size_t direction_len;
} pcmp_name;

/* Splits name as msprobe does (docs/msprobe-contract.md#precision-compare); false (and a zeroed
 * *out) when invalid. */
bool pc_pcmp_name_parse(const char *name, pcmp_name *out);

/* Test hook: the size of the filter that checks that each API's rows are consecutive (pcmp_run.c),
 * as log2 of its bits; 0 restores the default. A small one makes false positives common, so
 * that the exact check behind it is exercised. */
void pc_pcmp_test_seen_bits(unsigned log2_bits);

#endif
