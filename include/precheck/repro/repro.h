/*
 * Reproducing one API of a dump away from precheck (precheck op_generate, precheck repro):
 * the API's records taken out of a dump.json, and a standalone Python script that runs the API
 * through the user's torch on a device (npu if torch_npu imports, else cuda, else cpu) and on
 * a CPU bench (float16/bfloat16 raised to float32, float32 to float64, msprobe's rule), and
 * prints per output run_ut's details row: shape, both dtypes, the standard, its metrics
 * (docs/metrics.md, computed in torch) and run_ut's Status and Message. The script needs only
 * torch (and torch_npu on an NPU); `--csv FILE` writes its rows as run_ut's details CSV.
 *
 * OWNERSHIP: nothing here keeps pointers to its arguments after a call returns.
 * Errors are pc_status values with the message set (pc_error_set): what, where, what to do.
 */
#ifndef PC_REPRO_REPRO_H
#define PC_REPRO_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"
#include "precheck/dump/dump.h"

/* Where the script's tensors come from. */
typedef enum pc_repro_data_mode {
    PC_REPRO_RANDOM_DATA = 0, /* msprobe's random_data: drawn from each record's Min/Max */
    PC_REPRO_REAL_DATA,       /* msprobe's real_data: the dump's own tensor files */
    PC_REPRO_PRECHECK_INPUTS, /* the tensors run_ut computed with, saved beside the script */
} pc_repro_data_mode;

/* "random_data", "real_data", "precheck_inputs". */
const char *pc_repro_data_mode_name(pc_repro_data_mode m);

typedef struct pc_repro_script_options {
    const pc_dump *dump;       /* holds the API (its forward entry, and backward one if asked) */
    const char *api_full_name; /* "Functional.softmax.0" */
    bool backward;             /* the backward propagation (needs the backward entry) */
    pc_repro_data_mode data_mode;
    int64_t seed;       /* random_data's seed; also torch's seed before each side's call */
    int64_t iter_times; /* random_data: draws to run (1..1000) */
    /* real_data and precheck inputs: the folder of the records' files, absolute or relative to
     * the script's own folder; NULL: the records' names as they are (absolute paths) */
    const char *tensor_dir;
    const char *inputs_text; /* one line the script prints about its inputs; NULL: generic */
    const char *expected;    /* NULL, or one line: precheck's own verdict for this API */
    const char *source;      /* the dump named in the script's first comment; NULL: none */
} pc_repro_script_options;

/* Writes the script for o to path (whole or nothing, io/file_out.h; an existing file is
 * replaced). Errors: PC_ERR_NOT_FOUND (the API, or its backward entry, is not in the dump),
 * PC_ERR_UNSUPPORTED (a record the script cannot rebuild: its message names the argument),
 * PC_ERR_IO. */
pc_status pc_repro_script_write(const pc_repro_script_options *o, const char *path);

/* How pc_repro_extract writes the API's records. */
typedef enum pc_repro_extract_form {
    /* msprobe's extract_api_path: a JSON object of the API's entries only ("X.0.forward",
     * "X.0.backward"), indented by 4, each data_name of input_args, input, output,
     * grad_input and grad_output made the path of its file (<dump folder>/dump_tensor_data/,
     * where run_ut reads it) */
    PC_REPRO_EXTRACT_MSPROBE = 0,
    /* a dump.json of its own (the top-level members kept, "data" only the API's entries,
     * indent 1) with the API's tensor files copied into dump_tensor_data/ beside it: run_ut
     * and precheck materialize read it as they read the whole dump */
    PC_REPRO_EXTRACT_DUMP,
} pc_repro_extract_form;

/* Writes the entries of dump_json whose key is api_full_name followed by "." (msprobe's
 * pattern) to out_path in the given form; *entries (may be NULL) gets how many were written.
 * No entry: PC_ERR_NOT_FOUND ("API X is not in DUMP ..."), and nothing is written. Other
 * errors: the dump cannot be read or parsed (with line and column), PC_ERR_IO. */
pc_status pc_repro_extract(const char *dump_json, const char *api_full_name, const char *out_path,
                           pc_repro_extract_form form, size_t *entries);

/* Reads an extract written in PC_REPRO_EXTRACT_MSPROBE form (msprobe's or precheck's) as a
 * dump of its own (*out: pc_dump_free it), after msprobe's checks of it: not empty, an
 * object, at most two entries (forward, backward), the first a non-empty object, and for
 * backward a second non-empty object. Errors: PC_ERR_INVALID with msprobe's reason and what
 * to do. */
pc_status pc_repro_extract_read(const char *path, bool backward, pc_dump **out);

/* The inputs run_ut computes with for one API, as files: dump_json's records of api_full_name
 * taken out as a dump of their own (PC_REPRO_EXTRACT_DUMP, in out_dir/.extract, removed after)
 * and materialised into out_dir (inputs/materialize.h: out_dir/dump.json and
 * out_dir/dump_tensor_data/<record>.pt): the generated values of a statistics dump for this
 * seed, the dump's own tensors otherwise. run_ut on out_dir/dump.json writes the rows it
 * writes for that API on the whole dump. out_dir is created; it must not hold a dump.json.
 * Errors: pc_repro_extract's and pc_materialize's. */
pc_status pc_repro_inputs(const char *dump_json, const char *api_full_name, const char *out_dir,
                          uint64_t seed);

#endif
