/*
 * Where an API sits in the user's model: msprobe's stack.json (the Python call stack of every
 * dumped call) and construct.json (level mix: the module that called each API, and each
 * module's parent), read from the dump's folder.
 *
 * stack.json comes in two layouts, both read:
 *   - before msprobe 8.1.1: {"Functional.linear.0.forward": ["File ..., line N, in f, \n code",
 *     ...], ...}, one stack per dumped name;
 *   - from 8.1.1: {"0": [["Functional.linear.0.forward", "Functional.linear.1.forward"],
 *     [frames]], ...}, the names that share one stack grouped.
 * construct.json: {"Functional.linear.0.forward": "Module.qkv.Linear.forward.0",
 * "Module.qkv.Linear.forward.0": null, ...}; a level L1 dump writes {}.
 *
 * The user's frame is the first frame (innermost first, as msprobe writes them) that is not a
 * library's: pc_location_frame_is_library says which files are torch's, torch_npu's,
 * msprobe's, another installed package's or Python's own (docs/guide.md says the rule).
 *
 * Errors: a missing file is no error (no location: the user did not copy it); a present file
 * that cannot be read or is not one of these layouts is one WARNING naming it and is ignored;
 * only PC_ERR_NOMEM is returned.
 *
 * OWNERSHIP: a pc_locations owns everything; what pc_locations_find hands out is valid until
 * pc_locations_free. Reading one table from several threads is fine.
 */
#ifndef PC_RUNNER_LOCATION_H
#define PC_RUNNER_LOCATION_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"

/* One frame: "File <file>, line <line>, in <function>, \n <code>" taken apart; a frame in
 * another form has file = the whole text, line 0, function and code "". */
typedef struct pc_frame {
    const char *text; /* the frame as stack.json wrote it */
    const char *file;
    long line;
    const char *function;
    const char *code; /* the source line, leading blanks trimmed ("" when none) */
} pc_frame;

typedef struct pc_location {
    const pc_frame *frames; /* the whole stack, innermost first; NULL when none is known */
    size_t n_frames;
    const pc_frame *user; /* the first frame in the user's code, NULL when none */
    /* the calling modules from construct.json, outermost first ("Module.ln1.LayerNorm.forward.0"
     * last); n_modules 0 when none is known */
    const char *const *modules;
    size_t n_modules;
} pc_location;

typedef struct pc_locations pc_locations;

/* Reads DIR/stack.json and DIR/construct.json (dump_dir: the folder of dump.json). *out is a
 * table, empty when neither file is there or readable. PC_ERR_NOMEM only. */
pc_status pc_locations_load(pc_locations **out, const char *dump_dir);

/* The same, given the path of dump.json (its folder is taken). */
pc_status pc_locations_load_for_dump(pc_locations **out, const char *dump_json_path);

/* How many names the table knows a stack or a module of (0 for an empty table or NULL). */
size_t pc_locations_count(const pc_locations *l);

/* The location of API full_name ("Functional.linear.0": looked up as its forward entry, then
 * its backward entry). false, and *out zeroed, when neither a stack nor a module is known;
 * l may be NULL. */
bool pc_locations_find(const pc_locations *l, const char *full_name, pc_location *out);

void pc_locations_free(pc_locations *l); /* NULL is fine */

/* Whether a frame's file is a library's, not the user's: a name in angle brackets ("<string>",
 * "<frozen ...>"), anything under site-packages or dist-packages (torch, torch_npu, msprobe and
 * every installed package), a path with a folder named torch, torch_npu or msprobe (a source
 * checkout), and Python's own library (".../lib/python3.X/...", "lib64" too). */
bool pc_location_frame_is_library(const char *file);

#endif
