/*
 * precheck ops: the API names precheck can run, with the op each maps to, how it calls the op
 * (plain, swapped operands, in place), the comparison standard msprobe picks for it by name
 * and whether precheck has its backward. A user checks a dump's coverage against it; --json
 * gives the same rows to scripts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/compare/standard.h"
#include "precheck/core/log.h"
#include "precheck/dump/dump.h"
#include "precheck/dump/filter.h"
#include "precheck/io/json_write.h"
#include "precheck/ops/op.h"
#include "precheck/runner/runner.h"

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck ops [--json] [--dump DUMP_JSON]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out, "\nLists every API name precheck supports (as a dump names it: Functional.x, "
                 "Torch.x,\nTensor.x), the op it runs, the form of the call (plain, swapped: "
                 "reflected operands,\ninplace), the comparison standard msprobe selects by "
                 "name for float outputs\n(integer and bool outputs are always compared "
                 "bit for bit) and whether precheck\nruns its backward.\n\n"
                 "With --dump, lists instead each distinct API of that dump.json with its "
                 "number of\nforward calls and whether run_ut runs it (and if not, why: the "
                 "reason its first\ncall's row in run_ut's CSVs gives), then the share of "
                 "forward calls covered.\n\n"
                 "options:\n"
                 "  --json            one JSON array of objects instead of the table\n"
                 "  --dump DUMP_JSON  the coverage of one dump\n"
                 "  -h, --help        this help\n");
}

/* A string member of an API's object. */
static void json_member(pc_json_writer *w, const char *key, const char *value)
{
    pc_json_write_keyz(w, key);
    pc_json_write_stringz(w, value);
}

/* The JSON is written to stdout: a block array of one-line objects. */
static int json_finish(pc_json_writer *w)
{
    if (pc_json_writer_finish(w) == PC_OK)
        return 0;
    pc_log_error("%s", pc_error_message());
    return 1;
}

static int print_json(void)
{
    size_t n = pc_api_name_count();
    pc_json_writer w;
    pc_json_writer_init(&w, stdout, 2, PC_JSON_FINAL_NEWLINE);
    pc_json_write_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        const pc_api_name *a = pc_api_name_at(i);
        char full[160];
        snprintf(full, sizeof full, "%s.%s", a->api_type, a->api_name);
        pc_json_write_begin_object_inline(&w);
        json_member(&w, "api", full);
        json_member(&w, "api_type", a->api_type);
        json_member(&w, "api_name", a->api_name);
        json_member(&w, "op", a->op->name);
        json_member(&w, "form", pc_api_form_name(a->form));
        json_member(&w, "standard", pc_standard_name(pc_standard_of_api(a->api_name)));
        pc_json_write_keyz(&w, "backward");
        pc_json_write_bool(&w, a->op->backward);
        pc_json_write_end_object(&w);
    }
    pc_json_write_end_array(&w);
    return json_finish(&w);
}

static void print_table(void)
{
    size_t n = pc_api_name_count();
    int wapi = (int)strlen("api"), wop = (int)strlen("op"), wform = (int)strlen("form");
    int wstd = (int)strlen("standard");
    for (size_t i = 0; i < n; i++) {
        const pc_api_name *a = pc_api_name_at(i);
        int l = (int)(strlen(a->api_type) + 1 + strlen(a->api_name));
        wapi = l > wapi ? l : wapi;
        l = (int)strlen(a->op->name);
        wop = l > wop ? l : wop;
        l = (int)strlen(pc_api_form_name(a->form));
        wform = l > wform ? l : wform;
        l = (int)strlen(pc_standard_name(pc_standard_of_api(a->api_name)));
        wstd = l > wstd ? l : wstd;
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", wapi, "api", wop, "op", wform, "form", wstd, "standard",
           "backward");
    size_t nbwd = 0;
    for (size_t i = 0; i < n; i++) {
        const pc_api_name *a = pc_api_name_at(i);
        char full[160];
        snprintf(full, sizeof full, "%s.%s", a->api_type, a->api_name);
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", wapi, full, wop, a->op->name, wform,
               pc_api_form_name(a->form), wstd, pc_standard_name(pc_standard_of_api(a->api_name)),
               a->op->backward ? "yes" : "no");
        nbwd += a->op->backward != NULL;
    }
    printf("\n%zu API names, %zu ops, %zu names with a backward\n", n, pc_op_count(), nbwd);
}

/* ---- --dump: the coverage of one dump ---- */

typedef struct api_count {
    char name[160]; /* "Torch.matmul" (or the full name when it does not split) */
    size_t calls;
    pc_no_run why; /* of its first call (pc_api_why_not_run) */
} api_count;

static int by_calls(const void *a, const void *b)
{
    const api_count *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int print_coverage(const char *path, bool json)
{
    pc_dump *dump = NULL;
    if (pc_dump_open(&dump, path) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    api_count *c = calloc(dump->api_count + 1, sizeof *c);
    if (!c) {
        pc_dump_free(dump);
        pc_log_error("out of memory");
        return 1;
    }
    size_t n = 0, covered = 0, missing = 0;
    for (size_t i = 0; i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        char name[160];
        if (api->api_name)
            snprintf(name, sizeof name, "%s.%s", api->api_type, api->api_name);
        else
            snprintf(name, sizeof name, "%s", api->full_name);
        size_t k = 0;
        while (k < n && strcmp(c[k].name, name) != 0) /* dumps hold hundreds of distinct APIs */
            k++;
        if (k == n) {
            snprintf(c[n].name, sizeof c[n].name, "%s", name);
            c[n++].why = pc_api_why_not_run(api, NULL, 0);
        }
        c[k].calls++;
        covered += c[k].why == PC_RUNS;
        missing += c[k].why == PC_NO_RUN_NO_OP;
    }
    qsort(c, n, sizeof *c, by_calls);
    int rc = 0;
    if (json) {
        pc_json_writer w;
        pc_json_writer_init(&w, stdout, 2, PC_JSON_FINAL_NEWLINE);
        pc_json_write_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
            pc_json_write_begin_object_inline(&w);
            json_member(&w, "api", c[i].name);
            pc_json_write_keyz(&w, "calls");
            pc_json_write_int(&w, (int64_t)c[i].calls);
            pc_json_write_keyz(&w, "supported");
            pc_json_write_bool(&w, c[i].why == PC_RUNS);
            if (c[i].why != PC_RUNS)
                json_member(&w, "why", pc_no_run_text(c[i].why));
            pc_json_write_end_object(&w);
        }
        pc_json_write_end_array(&w);
        rc = json_finish(&w);
    } else {
        int w = (int)strlen("api");
        for (size_t i = 0; i < n; i++)
            w = (int)strlen(c[i].name) > w ? (int)strlen(c[i].name) : w;
        printf("%6s  %-*s  %s\n", "calls", w, "api", "run_ut");
        for (size_t i = 0; i < n; i++)
            printf("%6zu  %-*s  %s\n", c[i].calls, w, c[i].name,
                   c[i].why != PC_RUNS ? pc_no_run_text(c[i].why) : "runs");
        printf("\n%zu of %zu forward calls (%.1f%%) run, %zu distinct APIs\n", covered,
               dump->api_count,
               dump->api_count ? 100.0 * (double)covered / (double)dump->api_count : 100.0, n);
        /* the share that is precheck's to close: msprobe's own refusals left out */
        size_t runnable = covered + missing;
        printf("%zu of the %zu forward calls msprobe's run_ut runs (%.1f%%) run, %zu not supported "
               "by precheck yet\n",
               covered, runnable, runnable ? 100.0 * (double)covered / (double)runnable : 100.0,
               missing);
    }
    free(c);
    pc_dump_free(dump);
    return rc;
}

typedef struct ops_args {
    bool json;
    const char *dump;
} ops_args;

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)cmd;
    (void)count;
    ops_args *a = ctx;
    if (id == PC_FLAG_JSON)
        a->json = true;
    else if (id == PC_FLAG_DUMP)
        a->dump = values[0];
    return PC_ARGS_RUN;
}

static const pc_args_command command = {
    .prog = "precheck ops",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_JSON, PC_FLAG_DUMP, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

int pc_cli_ops(int argc, char **argv)
{
    ops_args a = {0};
    int rc = pc_args_parse(&command, argc, argv, take, &a, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    bool json = a.json;
    const char *dump = a.dump;
    if (dump)
        return print_coverage(dump, json);
    if (json)
        return print_json();
    print_table();
    return 0;
}
