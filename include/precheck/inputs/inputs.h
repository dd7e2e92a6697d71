/*
 * The inputs of one API call, rebuilt from its dump records (docs/msprobe-contract.md#replay): the
 * real tensor from the dump's tensor files in tensor mode, or a tensor drawn from the record's
 * statistics in statistics mode, after msprobe's per-API preprocessing.
 *
 * Random tensors follow msprobe's algorithm: the first element is Min and the last
 * is Max (in the dtype's precision), Max = NaN gives all NaN, Max = +-inf gives a tensor of
 * Max whose last slice along dim 0 is Min, infinite bounds scale by the dtype's finite range,
 * integers are uniform in the closed range [int(Min), int(Max)], bool tensors uniform in
 * [Min, Max] > 0, a zero in the shape gives an empty tensor. The uniform draws are made in the
 * target dtype and the affine map is evaluated in it, as torch does.
 *
 * They are NOT msprobe's values: msprobe draws from one process-wide generator, so its inputs
 * depend on the order of the APIs and on how the run was split. precheck draws from the keyed
 * counter-based generator (core/rng.h) with the key "<full API name>/<argument path>", e.g.
 * "Torch.matmul.0/input_args[1]": the values depend only on (seed, API, argument), so every
 * run of the same dump -- on the NPU side and on the GPU side, resumed, filtered, or with any
 * number of workers -- sees the same inputs.
 *
 * Preprocessing: cross_entropy's target (input_args[1]) gets Min = 0 when its
 * Min is <= 0; cross_entropy's int32 tensors become int64, histc's int64 tensors float32 (and
 * its int8/int32 input float32); float32 tensors of conv1d/conv2d are rounded to HF32.
 */
#ifndef PC_INPUTS_INPUTS_H
#define PC_INPUTS_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/tensor.h"
#include "precheck/dump/dump.h"

#define PC_INPUTS_DEFAULT_SEED 1234

/* The provider context for one API: pass it to pc_op_bind with pc_inputs_provide. */
typedef struct pc_inputs {
    const pc_dump *dump;
    uint64_t seed;
    /* Set by pc_inputs_begin from the inputs column of the API's row in dump/api_rules.def. */
    pc_dtype convert_from, convert_to; /* PC_DTYPE_INVALID: no conversion */
    bool hf32;                         /* conv1d / conv2d */
    bool cross_entropy, histc;
    /* Largest byte size of one generated or loaded tensor (0: the core limit). */
    size_t max_bytes;
} pc_inputs;

/* The largest tensor run_ut generates or loads by default: a quarter of the machine's memory,
 * so that a record with an absurd shape becomes that API's SKIP row instead of a swapping
 * machine (0 when the memory size is unknown: the core limit). */
size_t pc_inputs_default_max_bytes(void);

/* Prepares ctx for the API (its preprocessing rules). */
void pc_inputs_begin(pc_inputs *ctx, const pc_dump *dump, uint64_t seed, const pc_dump_api *api);

/* A pc_tensor_provider (inputs/bind.h): the tensor of the tensor argument arg of api, which may
 * sit in the forward entry or in the backward entry's input. Real data when the record names
 * a file, else random data. Errors carry msprobe's messages where msprobe has one
 * ("Data info Min: None , Max: None, info type must be int or float.", ...). */
pc_status pc_inputs_provide(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg,
                            pc_tensor *out);

/* The random tensor of a statistics record, in dtype (the record's own dtype normally), keyed
 * by key. min_floor_zero: the cross_entropy target rule. */
pc_status pc_inputs_random(const pc_dump_tensor *rec, pc_dtype dtype, bool min_floor_zero,
                           uint64_t seed, const char *key, pc_tensor *out);

#endif
