/*
 * Whether -npu and -gpu are a pair api_precision_compare can judge, from the run records
 * precheck's run_ut (and merge) write beside their CSVs: accuracy_checking_details_<ts>.csv has
 * precheck_run_<ts>.json in the same folder (runner/identity.c), whose "identity" holds the
 * dump's digest, the seed and the device kind, and whose "about" holds the dump's path and the
 * backend as given. See precision_compare.h, pc_pcmp_check_pair.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "precheck/core/log.h"
#include "precheck/io/json.h"
#include "precheck/io/path_check.h"
#include "precheck/precision_compare/precision_compare.h"

static const char details_prefix[] = "accuracy_checking_details_";

typedef struct side {
    const char *flag; /* "-npu" / "-gpu" */
    const char *csv;
    char record[PC_PATH_BUFFER_SIZE + 64];
    char ts[64];
    bool has_record;
    char unreadable[512]; /* why a record beside the CSV could not be read */
    pc_json_doc *doc;
    pc_json_ref identity, about;
} side;

/* The record's path of a details CSV named accuracy_checking_details_<ts>.csv (ts: at least 14
 * digits, as run_ut names them); false when the name is not run_ut's. */
static bool record_path(const char *csv, char *out, size_t size, char *ts, size_t ts_size)
{
    const char *slash = strrchr(csv, '/');
    const char *base = slash ? slash + 1 : csv;
    size_t p = sizeof details_prefix - 1, n = strlen(base);
    if (n < p + 14 + 4 || strncmp(base, details_prefix, p) != 0 ||
        strcmp(base + n - 4, ".csv") != 0 || strspn(base + p, "0123456789") < 14)
        return false;
    snprintf(ts, ts_size, "%.*s", (int)(n - p - 4), base + p);
    int dir_len = slash ? (int)(slash - csv) : 1;
    int w = snprintf(out, size, "%.*s/precheck_run_%s.json", dir_len, slash ? csv : ".", ts);
    return w > 0 && (size_t)w < size;
}

static void load(side *s)
{
    struct stat st;
    if (!record_path(s->csv, s->record, sizeof s->record, s->ts, sizeof s->ts) ||
        lstat(s->record, &st) != 0)
        return;
    if (!S_ISREG(st.st_mode)) {
        snprintf(s->unreadable, sizeof s->unreadable, "not a regular file");
        return;
    }
    if (pc_json_parse_file(&s->doc, s->record) != PC_OK) {
        snprintf(s->unreadable, sizeof s->unreadable, "%.500s", pc_error_message());
        s->doc = NULL;
        return;
    }
    s->identity = pc_json_object_get(s->doc, 0, "identity");
    s->about = pc_json_object_get(s->doc, 0, "about");
    if (s->identity == PC_JSON_NONE) {
        snprintf(s->unreadable, sizeof s->unreadable, "no \"identity\" in it");
        pc_json_free(s->doc);
        s->doc = NULL;
        return;
    }
    s->has_record = true;
}

static const char *field(const side *s, pc_json_ref obj, const char *key)
{
    return pc_json_string(s->doc, pc_json_object_get(s->doc, obj, key), NULL);
}

/* How a difference in an identity field counts: the inputs differ (refused), the rows or their
 * figures may differ (warned), or it does not matter here. */
typedef enum { DIFF_NONE, DIFF_INPUTS, DIFF_SETTINGS } diff_kind;

static diff_kind kind_of(const char *key)
{
    if (strcmp(key, "dump_content") == 0 || strcmp(key, "seed") == 0)
        return DIFF_INPUTS; /* the dump's data, and the inputs generated from the seed */
    if (strcmp(key, "device") == 0 || strcmp(key, "timeout") == 0 ||
        strcmp(key, "max_memory_mb") == 0)
        return DIFF_NONE; /* the device differs on purpose; limits decide no figure */
    return DIFF_SETTINGS;
}

typedef struct text {
    char s[PC_ERROR_MESSAGE_MAX / 2];
    size_t used;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    if (t->used >= sizeof t->s)
        return;
    if (t->used)
        t->used += (size_t)snprintf(t->s + t->used, sizeof t->s - t->used, "; ");
    if (t->used >= sizeof t->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    t->used += (size_t)vsnprintf(t->s + t->used, sizeof t->s - t->used, fmt, ap);
    va_end(ap);
}

/* One identity field compared; the difference said in *inputs or *settings. */
static void compare_field(const side *n, const side *g, const char *key, text *inputs,
                          text *settings)
{
    diff_kind k = kind_of(key);
    const char *a = field(n, n->identity, key), *b = field(g, g->identity, key);
    if (k == DIFF_NONE || (!a && !b) || (a && b && strcmp(a, b) == 0))
        return; /* a field neither record has (an older precheck) is no difference */
    if (strcmp(key, "dump_content") == 0) { /* name the dumps, and their digests */
        const char *pa = field(n, n->about, "dump"), *pb = field(g, g->about, "dump");
        add(inputs, "the dump: %s (%s) and %s (%s), content %s and %s", pa ? pa : "?", n->flag,
            pb ? pb : "?", g->flag, a ? a : "(none)", b ? b : "(none)");
        return;
    }
    add(k == DIFF_INPUTS ? inputs : settings, "%s: '%s' (%s), '%s' (%s)", key, a ? a : "(none)",
        n->flag, b ? b : "(none)", g->flag);
}

static bool same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* The device a record says its run used: the backend as given, else the device kind. */
static const char *backend_of(const side *s)
{
    const char *b = field(s, s->about, "backend");
    return b ? b : field(s, s->identity, "device");
}

static bool is_device(const side *s, const char *kind)
{
    const char *d = field(s, s->identity, "device");
    return d && strcmp(d, kind) == 0;
}

pc_status pc_pcmp_check_pair(const char *npu_csv, const char *gpu_csv, bool allow_different)
{
    return pc_pcmp_check_runs(npu_csv, gpu_csv, PC_PCMP_PAIR_JUDGE, allow_different);
}

pc_status pc_pcmp_check_runs(const char *npu_csv, const char *gpu_csv, pc_pcmp_pair_use use,
                             bool allow_different)
{
    bool judge = use == PC_PCMP_PAIR_JUDGE;
    struct stat sn, sg;
    if (judge &&
        (strcmp(npu_csv, gpu_csv) == 0 || (stat(npu_csv, &sn) == 0 && stat(gpu_csv, &sg) == 0 &&
                                           sn.st_dev == sg.st_dev && sn.st_ino == sg.st_ino)))
        return pc_error_set(PC_ERR_INVALID,
                            "-npu and -gpu are the same file: api_precision_compare judges the "
                            "NPU run's details CSV against the GPU run's. Give the "
                            "accuracy_checking_details CSV of run_ut on the NPU machine as -npu "
                            "and that of run_ut on the GPU machine as -gpu. (%s%s%s)",
                            npu_csv, strcmp(npu_csv, gpu_csv) == 0 ? "" : " and ",
                            strcmp(npu_csv, gpu_csv) == 0 ? "" : gpu_csv);
    side n = {.flag = judge ? "-npu" : "OLD", .csv = npu_csv},
         g = {.flag = judge ? "-gpu" : "NEW", .csv = gpu_csv};
    load(&n);
    load(&g);
    pc_status st = PC_OK;
    if (!n.has_record || !g.has_record) {
        char why[1400] = "";
        size_t used = 0;
        const side *sides[2] = {&n, &g};
        for (int i = 0; i < 2; i++) {
            const side *s = sides[i];
            if (s->has_record || used >= sizeof why)
                continue;
            if (s->unreadable[0])
                used += (size_t)snprintf(
                    why + used, sizeof why - used, "%s%s %s: its run record %s cannot be read: %s",
                    used ? "; " : "", s->flag, s->csv, s->record, s->unreadable);
            else
                used += (size_t)snprintf(why + used, sizeof why - used,
                                         "%s%s %s has no precheck run record beside it",
                                         used ? "; " : "", s->flag, s->csv);
        }
        pc_log_warning("%s could not be verified (%s; a CSV msprobe wrote, or one renamed or "
                       "moved away from its precheck_run_<ts>.json): only the API names show "
                       "that both sides ran the same dump.",
                       judge ? "The pair" : "That OLD and NEW ran the same dump", why);
        goto done;
    }
    /* copies of one run: the same record (one file, or the same bytes under the same time
     * stamp) */
    struct stat rn, rg;
    if (judge && ((stat(n.record, &rn) == 0 && stat(g.record, &rg) == 0 && rn.st_dev == rg.st_dev &&
                   rn.st_ino == rg.st_ino) ||
                  (strcmp(n.ts, g.ts) == 0 && same_bytes(n.record, g.record)))) {
        st = pc_error_set(PC_ERR_INVALID,
                          "-npu and -gpu are the same run_ut run: give the details CSV of run_ut "
                          "on the NPU machine as -npu and that of run_ut on the GPU machine as "
                          "-gpu. (Their run records are the same: %s and %s.)",
                          n.record, g.record);
        goto done;
    }
    text in = {.used = 0}, set = {.used = 0}, *inputs = &in, *settings = &set;
    for (pc_json_ref k = pc_json_first(n.doc, n.identity); k != PC_JSON_NONE;
         k = pc_json_next(n.doc, k)) {
        const char *key = pc_json_string(n.doc, k, NULL);
        if (key)
            compare_field(&n, &g, key, inputs, settings);
    }
    for (pc_json_ref k = pc_json_first(g.doc, g.identity); k != PC_JSON_NONE;
         k = pc_json_next(g.doc, k)) {
        const char *key = pc_json_string(g.doc, k, NULL);
        if (key && pc_json_object_get(n.doc, n.identity, key) == PC_JSON_NONE)
            compare_field(&n, &g, key, inputs, settings);
    }
    if (inputs->used && !allow_different && judge)
        st = pc_error_set(PC_ERR_INVALID,
                          "Refused: -npu and -gpu are run_ut runs of different inputs, and "
                          "api_precision_compare judges the NPU's errors against the GPU's on "
                          "the same inputs. Run run_ut on the same dump.json on both machines, "
                          "or pass --allow-different-dumps to compare these runs on purpose. "
                          "Their run records differ in %s.",
                          inputs->s);
    else if (inputs->used && !allow_different)
        st = pc_error_set(PC_ERR_INVALID,
                          "Refused: OLD and NEW are runs of different inputs, and precheck diff "
                          "tells what changed for the same APIs on the same inputs. Diff two "
                          "runs of the same dump.json (and seed), or pass "
                          "--allow-different-dumps to compare these runs on purpose. Their run "
                          "records differ in %s.",
                          inputs->s);
    else if (inputs->used)
        pc_log_warning("--allow-different-dumps: comparing runs of different inputs (%s); the "
                       "verdicts judge two different computations.",
                       inputs->s);
    if (st == PC_OK && settings->used)
        pc_log_warning("The two runs differ in settings that change their rows or figures (%s): "
                       "the verdicts may not compare like with like.",
                       settings->s);
    if (st != PC_OK)
        goto done;
    /* the sides swapped: the -npu side on a GPU, the -gpu side on an NPU */
    bool npu_on_gpu = judge && is_device(&n, "torch:cuda"),
         gpu_on_npu = judge && is_device(&g, "torch:npu");
    if (npu_on_gpu || gpu_on_npu) {
        text t = {.used = 0};
        if (npu_on_gpu)
            add(&t, "-npu %s ran on a GPU (--backend %s)", npu_csv, backend_of(&n));
        if (gpu_on_npu)
            add(&t, "-gpu %s ran on an NPU (--backend %s)", gpu_csv, backend_of(&g));
        pc_log_warning("The sides look swapped: %s. api_precision_compare judges the -npu run "
                       "against the -gpu run: give the NPU run's details CSV as -npu and the "
                       "GPU run's as -gpu.",
                       t.s);
    }
done:
    pc_json_free(n.doc);
    pc_json_free(g.doc);
    return st;
}
