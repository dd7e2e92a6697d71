/*
 * precheck check_dump: reads a dump the way run_ut will, loads every real tensor file and
 * checks it against its record (dtype, shape, statistics). Tells a user before a long run
 * whether the dump is complete and consistent.
 */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/log.h"
#include "precheck/dump/data.h"
#include "precheck/io/path_check.h"

/* Missing files past this many are counted, not listed (MSPROBE_LOG_LEVEL=0 lists them). */
#define MISSING_LISTED 5

typedef struct check_state {
    const pc_dump *dump;
    long tensors, files, bad_files, bad_shapes, missing;
    long loose, loose_low_precision, loose_overflow; /* files that match only loosely */
    /* the first message of each kind of loose match, said once with the count at the end */
    char first_low_precision[1024], first_overflow[1024];
} check_state;

static void keep_first(char *dst, size_t size, const char *msg)
{
    if (!dst[0])
        snprintf(dst, size, "%s", msg);
}

static int check_tensor(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    check_state *s = ctx;
    s->tensors++;
    if (!pc_dump_tensor_file(arg->u.tensor)) {
        /* statistics mode: the tensor will be generated, so it must be allocatable */
        if (pc_dump_tensor_check(api, arg, 0, NULL, NULL) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            s->bad_shapes++;
        }
        return 0;
    }
    s->files++;
    unsigned loose = 0;
    pc_status st = pc_dump_check_tensor_file(s->dump, api, arg, &loose);
    if (st == PC_ERR_NOT_FOUND) {
        /* a missing file: the first few are listed, the rest counted at the end */
        if (s->missing++ < MISSING_LISTED)
            pc_log_error("%s", pc_error_message());
        else
            pc_log_debug("%s", pc_error_message());
        s->bad_files++;
    } else if (st) {
        pc_log_error("%s", pc_error_message());
        s->bad_files++;
    } else if (loose) {
        /* not an error: torch's own rounding, which the file cannot show, but the check of
         * this tensor was weaker, and the user should know which and why: one line a kind at
         * the end, each tensor at debug level */
        pc_log_debug("%s", pc_error_message());
        s->loose++;
        if (loose & PC_STATS_LOOSE_LOW_PRECISION) {
            s->loose_low_precision++;
            keep_first(s->first_low_precision, sizeof s->first_low_precision, pc_error_message());
        }
        if (loose & PC_STATS_LOOSE_OVERFLOW) {
            s->loose_overflow++;
            keep_first(s->first_overflow, sizeof s->first_overflow, pc_error_message());
        }
    }
    return 0;
}

static int count_file(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    (void)api;
    *(size_t *)ctx += pc_dump_tensor_file(arg->u.tensor) != NULL;
    return 0;
}

static bool is_orphan(const pc_dump *dump, const pc_dump_backward *bw)
{
    const pc_dump_api *api = pc_dump_find(dump, bw->full_name);
    return !api || api->backward != &bw->entry;
}

/* Backward entries without their forward entry: nothing run_ut runs, said once. */
static void report_orphans(const pc_dump *dump)
{
    size_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < dump->backward_count; i++)
        if (is_orphan(dump, &dump->backwards[i]) && !n++)
            first = dump->backwards[i].entry.key;
    if (n && dump->api_count == 0)
        pc_log_warning("The dump holds %zu backward record%s and no forward record (written with "
                       "data_mode [\"backward\"]): run_ut runs each API from its forward record "
                       "(the inputs it was called with), so it has nothing to run. Dump with "
                       "data_mode [\"all\"] (or [\"forward\", \"backward\"]) for run_ut.",
                       n, n == 1 ? "" : "s");
    else if (n)
        pc_log_warning("%zu backward entries have no forward entry (the first: %s): run_ut runs "
                       "an API from its forward entry, so they are neither run nor checked",
                       n, first);
}

/* Every tensor file dump.json names is checked above or said here, with why it is not. */
static void account_files(const pc_dump *dump, long checked)
{
    if (!dump->named_files)
        return;
    /* backward entries no forward entry pairs with: run_ut never reads them */
    size_t orphans = 0;
    const char *orphan_example = NULL;
    for (size_t i = 0; i < dump->backward_count; i++) {
        const pc_dump_backward *bw = &dump->backwards[i];
        if (!is_orphan(dump, bw))
            continue;
        pc_dump_api alone = {.full_name = bw->full_name, .forward = bw->entry};
        size_t before = orphans;
        pc_dump_visit_tensors(&alone, count_file, &orphans);
        if (orphans > before && !orphan_example)
            orphan_example = bw->entry.key;
    }
    size_t named = dump->named_files, skipped = dump->module_files + orphans + dump->unread_files;
    pc_log_info("dump.json names %zu tensor files: %ld loaded and checked, %zu not%s", named,
                checked, skipped, skipped ? " (below)" : "");
    if (dump->module_files)
        pc_log_info("  %zu in Module entries, not checked: run_ut replays APIs, not modules",
                    dump->module_files);
    if (orphans)
        pc_log_warning("  %zu in backward entries without a forward entry (the first: %s), not "
                       "checked: run_ut runs an API from its forward entry",
                       orphans, orphan_example);
    if (dump->unread_files)
        pc_log_warning("  %zu under keys run_ut does not read, in records it cannot rebuild or in "
                       "the earlier body of a key written twice (the first: %s), not checked",
                       dump->unread_files, dump->unread_example);
    if ((size_t)checked + skipped != named)
        pc_log_warning("  %zu not accounted for: please report this with the dump",
                       named > (size_t)checked + skipped ? named - (size_t)checked - skipped
                                                         : (size_t)checked + skipped - named);
}

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck check_dump -api_info DUMP_JSON\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out, "\nReads an msprobe dump.json as run_ut does, loads every real tensor file of a "
                 "tensor-mode\ndump and checks it against its record: dtype, shape, and the "
                 "Max/Min/Mean/Norm\nstatistics msprobe wrote. For a statistics-mode dump it "
                 "checks that every tensor\nrecord describes a tensor that can be generated. It "
                 "counts the tensor files dump.json\nnames and says why any is not checked (in a "
                 "Module entry, a backward entry without its\nforward, a key run_ut does not "
                 "read).\n\n"
                 "Max and Min must be the file's exactly. msprobe took Mean and Norm with torch on "
                 "the tensor\nas the API saw it, on its device, in its own dtype; the file holds a "
                 "contiguous copy, and\nthe rounding of torch's sums cannot be reproduced from it. "
                 "A Mean or Norm is an ERROR\nonly when no such sum gives it. Within float32 "
                 "rounding, or the -inf/+inf a float32 sum\nmust reach (an attention mask full of "
                 "finfo(float32).min has Mean -inf), it matches.\nWhen tensors match only loosely, "
                 "one WARNING a cause gives their count and "
                 "the first\n(MSPROBE_LOG_LEVEL=0 lists each); the causes:"
                 "\n"
                 "  - a float32 partial sum may have overflowed to an infinity;\n"
                 "  - the value is within the error of a sum accumulated in the tensor's own dtype "
                 "in any\n    order (torch 1.13 on the CPU sums float16, bfloat16 views and long "
                 "float32 norms so,\n    and can be off by 2x and more); then only Max, Min and "
                 "the shape check that tensor\n    closely.\n\n"
                 "A tensor-mode dump.json without its dump_tensor_data/ folder is one error; of "
                 "missing files\nthe first five are listed and the rest counted.\n\n"
                 "options:\n"
                 "  -api_info, --api_info_file DUMP_JSON   the dump.json to check\n"
                 "  -h, --help                             this help\n\n"
                 "Exit status: 0 when everything matches (warnings included), 1 when something "
                 "does not or\nthe dump cannot be read, 2 for a usage error.\n");
}

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)cmd;
    (void)count;
    if (id == PC_FLAG_API_INFO)
        *(const char **)ctx = values[0];
    return PC_ARGS_RUN;
}

static const pc_args_command command = {
    .prog = "precheck check_dump",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_API_INFO, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

int pc_cli_check_dump(int argc, char **argv)
{
    const char *api_info = NULL;
    int rc = pc_args_parse(&command, argc, argv, take, &api_info, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    if (!api_info)
        return pc_args_usage_error(&command, "-api_info DUMP_JSON is required");
    char resolved[PC_PATH_BUFFER_SIZE];
    if (pc_path_check(api_info, PC_PATH_FILE, PC_PATH_READ, ".json", resolved, sizeof resolved)) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_dump *dump = NULL;
    if (pc_dump_open(&dump, api_info) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    check_state s = {.dump = dump};
    long unsupported = 0, backward = 0;
    size_t named = 0;
    if (pc_dump_check_tensor_dir(dump, &named) != PC_OK) {
        /* dump.json copied alone: one error, not one per file */
        pc_log_error("%s", pc_error_message());
        pc_log_info("%s: tensor-mode dump, %zu APIs, %zu tensor files named, none checked",
                    api_info, dump->api_count, named);
        pc_dump_free(dump);
        return 1;
    }
    for (size_t i = 0; i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        if (!api->api_name)
            unsupported++;
        if (api->backward)
            backward++;
        pc_dump_visit_tensors(api, check_tensor, &s);
    }
    pc_log_info("%s: %s dump, %zu APIs (%ld with a backward entry, %ld whose name run_ut cannot "
                "parse), %ld tensor records",
                api_info, dump->has_real_data ? "tensor-mode" : "statistics-mode", dump->api_count,
                backward, unsupported, s.tensors);
    if (s.missing > MISSING_LISTED)
        pc_log_error("%ld tensor files that dump.json names are missing (the first %d are listed "
                     "above; MSPROBE_LOG_LEVEL=0 lists each): copy the whole rank folder "
                     "(dump.json with all of dump_tensor_data/)",
                     s.missing, MISSING_LISTED);
    if (s.loose_low_precision)
        pc_log_warning("%ld tensor%s match%s their records only within the error of a sum "
                       "accumulated in the tensor's own low-precision dtype (torch's rounding, "
                       "which the file cannot show; Max, Min and the shape check %s closely). "
                       "The first: %s",
                       s.loose_low_precision, s.loose_low_precision == 1 ? "" : "s",
                       s.loose_low_precision == 1 ? "es" : "",
                       s.loose_low_precision == 1 ? "it" : "them", s.first_low_precision);
    if (s.loose_overflow)
        pc_log_warning("%ld tensor%s match%s their records only if a float32 partial sum "
                       "overflowed to an infinity. The first: %s",
                       s.loose_overflow, s.loose_overflow == 1 ? "" : "s",
                       s.loose_overflow == 1 ? "es" : "", s.first_overflow);
    if (s.files && s.loose)
        pc_log_info("%ld tensor files loaded: %ld match their records, %ld of them only loosely "
                    "(warnings above: %ld within the error of a low-precision sum, %ld with an "
                    "overflowed float32 sum; MSPROBE_LOG_LEVEL=0 lists each), %ld do not",
                    s.files, s.files - s.bad_files, s.loose, s.loose_low_precision,
                    s.loose_overflow, s.bad_files);
    else if (s.files && s.missing)
        pc_log_info("%ld tensor files loaded: %ld match their records, %ld do not (%ld of them "
                    "missing)",
                    s.files, s.files - s.bad_files, s.bad_files, s.missing);
    else if (s.files)
        pc_log_info("%ld tensor files loaded: %ld match their records, %ld do not", s.files,
                    s.files - s.bad_files, s.bad_files);
    if (s.tensors > s.files)
        pc_log_info("%ld tensor records without files (generated from their statistics): %ld "
                    "cannot be generated",
                    s.tensors - s.files, s.bad_shapes);
    report_orphans(dump);
    account_files(dump, s.files);
    pc_dump_free(dump);
    return s.bad_files || s.bad_shapes ? 1 : 0;
}
