/* The op rows of the "nn" group, in op_list.h's X-macro form (included by op_list.h only). */
/* clang-format off */
/* clang-format on */
