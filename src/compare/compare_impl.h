/* Private to compare/: the pieces of the output comparison shared by its files. */
#ifndef PC_COMPARE_COMPARE_IMPL_H
#define PC_COMPARE_COMPARE_IMPL_H

#include "precheck/compare/compare.h"

/* Appends printf text to row->message, cutting it at PC_MESSAGE_MAX. */
void pc_cmp_row_append(pc_detail_row *row, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A tensor's shape as Python prints a tuple: "(2, 3)", "(4,)", "()". */
void pc_cmp_shape_tuple_text(char *dst, size_t size, const pc_tensor *t);

/* A row with every cell SPACE, status pass and an empty message. */
void pc_cmp_row_init(pc_detail_row *row);

/* _compare_torch_tensor: fills the dtype and shape columns, then the rest. PC_ERR_UNSUPPORTED
 * where msprobe raises (the message is msprobe's exception text), PC_ERR_NOMEM. */
pc_status pc_cmp_compare_tensor(pc_detail_row *row, const char *api_name, const pc_tensor *bench,
                                const pc_tensor *device, const pc_compare_options *opt);

#endif
