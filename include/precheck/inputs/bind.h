/*
 * The binder: a dump record's forward entry -> a pc_op_call (precheck/ops/call.h) typed by the
 * op's schema.
 *
 * Binding (pc_op_bind): positional arguments of input_args in schema order (after the name
 * form's permutation), then input_kwargs by name, then the schema's defaults; optionals may be
 * None. Accepted forms per schema type: Tensor <- tensor record (through the caller's tensor
 * provider) or, for the op's scalar_args, a Python number (a "wrapped number"); Tensor[] <-
 * list of tensors; int <- int; int[] <- list of ints or torch.Size, int[N] also a single int;
 * float <- float or int; bool <- bool; str <- str; Scalar <- int, float or bool; ScalarType <-
 * torch.dtype; Device, Layout, MemoryFormat, Generator <- anything (ignored); Index <- int, bool,
 * None, slice, ellipsis, tensor, or a list of these (a list of only ints and bools is one
 * index tensor, as torch reads it; a list inside the list must be of ints and bools too);
 * `str|Type` (schema.h) <- str (a PC_VALUE_STR) or what Type takes; `Type name|Scalar name2`
 * for a Tensor argument: by position a tensor or a number, by the keyword name a tensor only,
 * by name2 a number or a 0-dim tensor that does not require grad (both a wrapped number).
 * Anything else is PC_ERR_INVALID with a message such as
 *   "Functional.layer_norm.0: argument 'eps': expected float, found str".
 */
#ifndef PC_INPUTS_BIND_H
#define PC_INPUTS_BIND_H

#include "precheck/core/status.h"
#include "precheck/core/tensor.h"
#include "precheck/dump/dump.h"
#include "precheck/ops/call.h"
#include "precheck/ops/op.h"

/* Gives the tensor of one tensor record (the caller's choice: the real data with
 * pc_dump_load_tensor, or generated data). *out must be a new reference; on error the
 * provider sets the message. */
typedef pc_status (*pc_tensor_provider)(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg,
                                        pc_tensor *out);

/* Binds the forward entry of api onto the op of name (from pc_api_lookup). *out is written on
 * success only; on failure nothing is left to free. */
pc_status pc_op_bind(const pc_dump_api *api, const pc_api_name *name, pc_tensor_provider provider,
                     void *ctx, pc_op_call *out);

/* pc_op_bind over name and its overloads (pc_api_lookup_next), in table order: the first that
 * binds; *used (may be NULL) gets its row. When none binds, the first one's error. */
pc_status pc_op_bind_overloads(const pc_dump_api *api, const pc_api_name *name,
                               pc_tensor_provider provider, void *ctx, pc_op_call *out,
                               const pc_api_name **used);

#endif
