/* The op rows of the "reduction" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in reduction_impl.h. */
/* clang-format off */
/* clang-format on */
