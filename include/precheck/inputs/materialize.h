/*
 * Materialising the generated inputs of a statistics-mode dump (precheck materialize): a new
 * dump whose input tensors are files holding exactly what run_ut generates for them, so that
 * run_ut on the new dump -- precheck's on any machine, or msprobe's on an NPU or GPU that
 * cannot reproduce precheck's generator -- computes with the same inputs, and precheck's
 * run_ut writes the same CSV rows as on the original dump with the same seed.
 *
 * What is written (OUT is the output folder):
 *   OUT/dump.json: the input's text re-serialised as msprobe writes it (dump/dump_write.h),
 *     "dump_data_dir" set to the absolute path of OUT/dump_tensor_data, and every filled
 *     tensor record given a "data_name" (before "md5", else last, msprobe's key order) and
 *     statistics (Max/Min/Mean/Norm, and md5 where the record has one) recomputed from the
 *     written data with pc_tensor_stats_compute(), so precheck check_dump accepts the result;
 *   OUT/dump_tensor_data/<name>.pt: one torch.save-compatible file per filled record, named as
 *     msprobe names them: "<entry key>.input.<i>[.<j>...].pt" for input_args (nested list
 *     elements add their index), "<entry key>.kwargs.<key>[.<j>].pt" for input_kwargs (msprobe's
 *     category "kwargs"), "<name>.backward.input.<i>.pt" for the backward record's input.
 *
 * Filled: the tensor records run_ut reads -- input_args and input_kwargs of forward entries
 * (through lists) and the backward entry's input -- of every forward entry run_ut can pair.
 * Not filled, kept as statistics-only records: forward outputs and backward outputs (run_ut
 * never reads them), Module records, tensors inside namedtuple-like objects, records the
 * dumper marked unreadable, and records whose tensor cannot be generated (unknown dtype,
 * non-numeric bounds, over max_bytes, ...): run_ut generates those again and fails the same
 * way, so its rows do not change. A record that already names a file (a tensor-mode or a
 * tensor_list dump given as input) is copied as is and its file copied along.
 *
 * The written tensor is the provider's result (pc_inputs_provide, the path run_ut takes),
 * i.e. after msprobe's preprocessing: cross_entropy's int32 tensors are written as int64 (and
 * the record's dtype says torch.int64), histc's integer input as float32, conv1d/conv2d's
 * float32 inputs already HF32-rounded. Loading runs that preprocessing again, and each step is
 * idempotent on its own result (the dtype no longer matches the conversion's source; HF32
 * rounding keeps rounded values), so run_ut computes with identical bits. float8 tensors are
 * written as float32, as msprobe does, with the record's float8 dtype kept.
 */
#ifndef PC_INPUTS_MATERIALIZE_H
#define PC_INPUTS_MATERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"

typedef struct pc_materialize_options {
    const char *api_info; /* the dump.json to read */
    const char *out_dir;  /* created when missing; must not hold a dump.json, and its
                             dump_tensor_data (created) must be empty */
    uint64_t seed;        /* the seed run_ut will be given (PC_INPUTS_DEFAULT_SEED) */
    size_t max_bytes;     /* largest tensor to generate, as run_ut's limit (0: the core limit) */
} pc_materialize_options;

typedef struct pc_materialize_stats {
    size_t generated; /* records filled with a generated tensor */
    size_t copied;    /* records that named a file already (file copied) */
    size_t kept;      /* input records left as statistics (could not be generated) */
    uint64_t bytes;   /* bytes of tensor files written */
} pc_materialize_stats;

/*
 * Writes the materialised dump of o->api_info into o->out_dir (see above). stats may be NULL.
 * A record that cannot be generated is logged as a WARNING and kept. Errors (nothing usable is
 * left: dump.json is written last, under a temporary name first): the dump cannot be read
 * (pc_dump_open's errors), duplicate entry keys in "data", an output folder that is not empty,
 * a tensor file of the input that is missing or unreadable, a record naming a file in a dump
 * whose dump_data_dir is null, I/O errors; each with a message naming the file or the API.
 */
pc_status pc_materialize(const pc_materialize_options *o, pc_materialize_stats *stats);

#endif
