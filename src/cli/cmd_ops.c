/*
 * precheck ops: the API names precheck can run, with the op each maps to, how it calls the op
 * (plain, swapped operands, in place), the comparison standard msprobe picks for it by name
 * and whether precheck has its backward. A user checks a dump's coverage against it; --json
 * gives the same rows to scripts.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "precheck/compare/standard.h"
#include "precheck/ops/op.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: precheck ops [--json]\n\n"
                 "Lists every API name precheck supports (as a dump names it: Functional.x, "
                 "Torch.x,\nTensor.x), the op it runs, the form of the call (plain, swapped: "
                 "reflected operands,\ninplace), the comparison standard msprobe selects by "
                 "name for float outputs\n(integer and bool outputs are always compared "
                 "bit for bit) and whether precheck\nruns its backward.\n\n"
                 "options:\n"
                 "  --json      one JSON array of objects instead of the table\n"
                 "  -h, --help  this help\n");
}

/* A JSON string of plain text (the names are ASCII identifiers; quotes and backslashes are
 * escaped all the same). */
static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void print_json(void)
{
    size_t n = pc_api_name_count();
    printf("[");
    for (size_t i = 0; i < n; i++) {
        const pc_api_name *a = pc_api_name_at(i);
        printf("%s\n  {\"api\": ", i ? "," : "");
        char full[160];
        snprintf(full, sizeof full, "%s.%s", a->api_type, a->api_name);
        json_string(full);
        printf(", \"api_type\": ");
        json_string(a->api_type);
        printf(", \"api_name\": ");
        json_string(a->api_name);
        printf(", \"op\": ");
        json_string(a->op->name);
        printf(", \"form\": ");
        json_string(pc_api_form_name(a->form));
        printf(", \"standard\": ");
        json_string(pc_standard_name(pc_standard_of_api(a->api_name)));
        printf(", \"backward\": %s}", a->op->backward ? "true" : "false");
    }
    printf("%s]\n", n ? "\n" : "");
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

int pc_cli_ops(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-json") == 0) {
            json = true;
            continue;
        }
        fprintf(stderr, "precheck ops: unknown argument '%s' (try --help)\n", argv[i]);
        return 2;
    }
    if (json)
        print_json();
    else
        print_table();
    return 0;
}
