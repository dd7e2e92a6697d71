/*
 * precheck merge: the folders of `run_ut --shard K/N` runs joined into the two CSVs one run_ut
 * of the whole dump writes, byte for byte (runner.h, pc_merge).
 *
 * Each shard's folder holds its run record (precheck_run_<ts>.json, identity.c) beside its
 * CSVs. The records must agree on everything that decides rows but the shard, and name every
 * shard 1..N once. The dump (the records' path, or -api_info) must have the digested content;
 * its split is computed again (runner/cost.h: the same on every machine), and the rows are
 * taken in dump order, each API's from the shard that ran it: its result row, then its details
 * rows. A shard that lacks a row of its share (interrupted) or holds a row of another share is
 * named with the command that resumes it. Rows are copied as bytes, never re-formatted.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/excerpt.h"
#include "precheck/core/log.h"
#include "precheck/dump/filter.h"
#include "precheck/io/file_out.h"
#include "precheck/io/json.h"
#include "precheck/io/path_check.h"
#include "precheck/runner/cost.h"
#include "runner_impl.h"

typedef struct shard_in {
    char record[PC_PATH_BUFFER_SIZE + 128]; /* precheck_run_<ts>.json */
    char result[PC_PATH_BUFFER_SIZE + 128], details[PC_PATH_BUFFER_SIZE + 128];
    pc_json_doc *doc;
    pc_json_ref identity, about;
    unsigned k, n;
    char *rdata, *ddata;
    size_t rlen, dlen;
    pc_csv_record *rr, *dr;
    size_t rcount, dcount, ri, di; /* records, and the next one to take (0 is the header) */
} shard_in;

static const char record_prefix[] = "precheck_run_";

/* Whether name is precheck_run_<14 digits>[...].json; the time stamp into ts. */
static bool record_name(const char *name, char *ts, size_t size)
{
    size_t n = strlen(name), p = sizeof record_prefix - 1;
    if (n < p + 5 + 14 || strncmp(name, record_prefix, p) != 0 ||
        strcmp(name + n - 5, ".json") != 0 || strspn(name + p, "0123456789") < 14)
        return false;
    snprintf(ts, size, "%.*s", (int)(n - p - 5), name + p);
    return true;
}

/* The record of one input: the record file itself, or the only one in a folder. */
static pc_status find_record(const char *input, shard_in *sh, char *ts, size_t ts_size)
{
    struct stat st;
    if (stat(input, &st) != 0)
        return pc_error_set(PC_ERR_IO, "%s: %s (give the -o folder of each run_ut --shard K/N run)",
                            input, strerror(errno));
    char dir[PC_PATH_BUFFER_SIZE];
    if (S_ISREG(st.st_mode)) {
        const char *slash = strrchr(input, '/');
        const char *base = slash ? slash + 1 : input;
        if (!record_name(base, ts, ts_size))
            return pc_error_set(PC_ERR_INVALID,
                                "%s is not a run record (precheck_run_<ts>.json): give the -o "
                                "folder of a run_ut --shard K/N run, or its record",
                                input);
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - input) : 1, slash ? input : ".");
    } else if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(input);
        if (!d)
            return pc_error_set(PC_ERR_IO, "%s: cannot read: %s", input, strerror(errno));
        int found = 0;
        char names[2][64] = {"", ""};
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char t[64];
            if (!record_name(e->d_name, t, sizeof t))
                continue;
            if (found < 2)
                snprintf(names[found], sizeof names[found], "%.63s", e->d_name);
            if (found++ == 0)
                snprintf(ts, ts_size, "%s", t);
        }
        closedir(d);
        if (found == 0)
            return pc_error_set(PC_ERR_NOT_FOUND,
                                "%s holds no precheck run record (precheck_run_<ts>.json): give "
                                "the -o folder of each run_ut --shard K/N run",
                                input);
        if (found > 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s holds %d runs (%s, %s, ...): give the record file of the "
                                "shard's run instead of the folder",
                                input, found, names[0], names[1]);
        snprintf(dir, sizeof dir, "%s", input);
    } else {
        return pc_error_set(PC_ERR_INVALID, "%s is neither a folder nor a run record", input);
    }
    snprintf(sh->record, sizeof sh->record, "%s/%s%s.json", dir, record_prefix, ts);
    snprintf(sh->result, sizeof sh->result, "%s/accuracy_checking_result_%s.csv", dir, ts);
    snprintf(sh->details, sizeof sh->details, "%s/accuracy_checking_details_%s.csv", dir, ts);
    return PC_OK;
}

static const char *ident_str(const shard_in *sh, const char *key)
{
    return pc_json_string(sh->doc, pc_json_object_get(sh->doc, sh->identity, key), NULL);
}

static pc_status load_shard(const char *input, shard_in *sh)
{
    char ts[64];
    /* run_ut's link rule for what merge reads: the input as given, and the files it finds */
    pc_status st = pc_path_check_not_link(input);
    if (st == PC_OK)
        st = find_record(input, sh, ts, sizeof ts);
    const char *const found[3] = {sh->record, sh->result, sh->details};
    for (int i = 0; i < 3 && st == PC_OK; i++)
        st = pc_path_check_not_link(found[i]);
    if (st != PC_OK)
        return st;
    st = pc_json_parse_file(&sh->doc, sh->record);
    if (st != PC_OK)
        return pc_error_prefix(st, "the run record %s cannot be read", sh->record);
    sh->identity = pc_json_object_get(sh->doc, 0, "identity");
    sh->about = pc_json_object_get(sh->doc, 0, "about");
    if (pc_json_type_of(sh->doc, sh->identity) != PC_JSON_OBJECT)
        return pc_error_set(PC_ERR_FORMAT, "%s is not a precheck run record (no \"identity\")",
                            sh->record);
    const char *shard = ident_str(sh, "shard");
    int used = 0;
    if (!shard || sscanf(shard, "%u/%u%n", &sh->k, &sh->n, &used) != 2 || shard[used] ||
        sh->n < 1 || sh->k < 1 || sh->k > sh->n)
        sh->k = sh->n = 1; /* a run of the whole dump (or a record from before shards) */
    st = pc_csv_file_read(sh->result, &sh->rdata, &sh->rlen);
    if (st == PC_OK)
        st = pc_csv_file_read(sh->details, &sh->ddata, &sh->dlen);
    size_t end;
    if (st == PC_OK)
        st = pc_csv_records_split(sh->rdata, sh->rlen, &sh->rr, &sh->rcount, &end);
    if (st == PC_OK)
        st = pc_csv_records_split(sh->ddata, sh->dlen, &sh->dr, &sh->dcount, &end);
    if (st != PC_OK)
        return pc_error_prefix(st, "shard %u/%u (%s)", sh->k, sh->n, sh->record);
    if (sh->rcount == 0 || strcmp(sh->rr[0].first, PC_MCSV_RESULT_FIRST) != 0 || sh->dcount == 0 ||
        strcmp(sh->dr[0].first, PC_MCSV_DETAILS_FIRST) != 0)
        return pc_error_set(PC_ERR_FORMAT, "%s or %s is not a CSV that run_ut wrote (no header)",
                            sh->result, sh->details);
    sh->ri = sh->di = 1;
    return PC_OK;
}

static void free_shard(shard_in *sh)
{
    pc_json_free(sh->doc);
    free(sh->rdata);
    free(sh->ddata);
    pc_csv_records_free(sh->rr, sh->rcount);
    pc_csv_records_free(sh->dr, sh->dcount);
}

/* The shards must be of one run: every identity field of each as the first's, but the shard;
 * N the same; every K once. */
static pc_status check_shards(shard_in *sh, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        for (int pass = 0; pass < 2; pass++) { /* the first's keys in i, then i's in the first */
            const shard_in *a = pass ? &sh[i] : &sh[0], *b = pass ? &sh[0] : &sh[i];
            for (pc_json_ref key = pc_json_first(a->doc, a->identity); key != PC_JSON_NONE;
                 key = pc_json_next(a->doc, key)) {
                const char *name = pc_json_string(a->doc, key, NULL);
                if (!name || strcmp(name, "shard") == 0)
                    continue;
                const char *va = pc_json_string(a->doc, pc_json_member_value(a->doc, key), NULL);
                const char *vb = ident_str(b, name);
                if (va && vb && strcmp(va, vb) == 0)
                    continue;
                const char *v0 = pass ? vb : va, *vi = pass ? va : vb;
                pc_excerpt en, e0, ei;
                if (strcmp(name, "dump_content") == 0) { /* name the dumps, not their digests */
                    const char *d0 = pc_json_string(
                        sh[0].doc, pc_json_object_get(sh[0].doc, sh[0].about, "dump"), NULL);
                    const char *di = pc_json_string(
                        sh[i].doc, pc_json_object_get(sh[i].doc, sh[i].about, "dump"), NULL);
                    return pc_error_set(PC_ERR_INVALID,
                                        "%s and %s are shards of different runs: the dumps' "
                                        "contents differ (%s, %s). Merge the shards of one run "
                                        "(the same dump and settings).",
                                        sh[0].record, sh[i].record, d0 ? d0 : "?", di ? di : "?");
                }
                return pc_error_set(
                    PC_ERR_INVALID,
                    "%s and %s are shards of different runs: %s is %s in the first and %s in "
                    "the second. Merge the shards of one run (the same dump and settings).",
                    sh[0].record, sh[i].record, pc_excerpt_of(&en, name),
                    v0 ? pc_excerpt_of(&e0, v0) : "(none)", vi ? pc_excerpt_of(&ei, vi) : "(none)");
            }
        }
        if (sh[i].n != sh[0].n)
            return pc_error_set(PC_ERR_INVALID,
                                "%s is shard %u/%u but %s is shard %u/%u: shards of one split "
                                "have the same N",
                                sh[i].record, sh[i].k, sh[i].n, sh[0].record, sh[0].k, sh[0].n);
    }
    unsigned n = sh[0].n;
    if (n == 1 && count == 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s is a run of the whole dump, not a shard: its CSVs are already "
                            "what merge would write",
                            sh[0].record);
    const shard_in **by_k = calloc(n + 1, sizeof *by_k);
    if (!by_k)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_status st = PC_OK;
    for (size_t i = 0; i < count && st == PC_OK; i++) {
        if (by_k[sh[i].k])
            st = pc_error_set(PC_ERR_INVALID, "shard %u/%u is given twice: %s and %s", sh[i].k, n,
                              by_k[sh[i].k]->record, sh[i].record);
        by_k[sh[i].k] = &sh[i];
    }
    if (st == PC_OK && count < n) {
        char missing[512] = "";
        size_t used = 0, m = 0;
        for (unsigned k = 1; k <= n; k++)
            if (!by_k[k] && used < sizeof missing - 16) {
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%u/%u",
                                         m++ ? ", " : "", k, n);
            }
        st = pc_error_set(PC_ERR_NOT_FOUND,
                          "%u of the %u shards are missing: %s. Give the -o folder of every "
                          "run_ut --shard K/N run of this dump (run the missing ones first).",
                          n - (unsigned)count, n, missing);
    }
    free(by_k);
    return st;
}

static pc_status shard_incomplete(const shard_in *sh, const char *api, const char *found)
{
    const char *cmd = pc_json_string(sh->doc, pc_json_object_get(sh->doc, 0, "command"), NULL);
    if (found)
        return pc_error_set(PC_ERR_INVALID,
                            "shard %u/%u (%s) holds a row of %s where %s was expected: its CSVs "
                            "are not of this split of this dump (edited, or written by another "
                            "run into the same files)",
                            sh->k, sh->n, sh->result, found, api);
    return pc_error_set(PC_ERR_INVALID,
                        "shard %u/%u (%s) has no row for %s, an API of its share: the shard's run "
                        "did not finish. Resume it (%s -csv_path %s), then merge again.",
                        sh->k, sh->n, sh->result, api, cmd ? cmd : "precheck run_ut ...",
                        sh->result);
}

static bool write_range(FILE *f, const char *data, const pc_csv_record *r)
{
    return fwrite(data + r->start, 1, r->end - r->start, f) == r->end - r->start;
}

/* The rows of the merged run into the two open files, in dump order. */
static pc_status write_rows(shard_in *sh, size_t count, const pc_dump *dump, const bool *keep,
                            FILE *rf, FILE *df, size_t *apis)
{
    unsigned n = sh[0].n;
    shard_in **by_k = calloc(n + 1, sizeof *by_k);
    uint32_t *shard_of = malloc((dump->api_count + 1) * sizeof *shard_of);
    pc_status st = PC_OK;
    if (!by_k || !shard_of)
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == PC_OK && i < count; i++)
        by_k[sh[i].k] = &sh[i];
    if (st == PC_OK)
        st = pc_shard_assign(dump, keep, n, shard_of, NULL);
    /* headers: the first shard's bytes (with its BOM, if any) */
    if (st == PC_OK && (fwrite(sh[0].rdata, 1, sh[0].rr[0].end, rf) != sh[0].rr[0].end ||
                        fwrite(sh[0].ddata, 1, sh[0].dr[0].end, df) != sh[0].dr[0].end))
        st = pc_error_set(PC_ERR_IO, "cannot write the merged CSVs: %s", strerror(errno));
    *apis = 0;
    for (size_t i = 0; st == PC_OK && i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        if (keep && !keep[i])
            continue;
        if (api->unsafe_name)
            break; /* run_ut stops at it: no shard wrote rows after it */
        shard_in *s = by_k[shard_of[i] + 1];
        size_t len = strlen(api->full_name);
        if (s->ri >= s->rcount) {
            st = shard_incomplete(s, api->full_name, NULL);
            break;
        }
        const pc_csv_record *r = &s->rr[s->ri];
        if (r->first_len != len || memcmp(r->first, api->full_name, len) != 0) {
            /* a row of an API further on in the dump: this one is missing (the shard did
             * not finish); any other row is not of this split */
            bool later = false;
            for (size_t j = i + 1; j < dump->api_count && !later; j++)
                later = strcmp(dump->apis[j].full_name, r->first) == 0;
            st = shard_incomplete(s, api->full_name, later ? NULL : r->first);
            break;
        }
        if (!write_range(rf, s->rdata, r)) {
            st = pc_error_set(PC_ERR_IO, "cannot write the merged result CSV: %s", strerror(errno));
            break;
        }
        s->ri++;
        for (; s->di < s->dcount; s->di++) {
            const pc_csv_record *d = &s->dr[s->di];
            pc_mcsv_row row;
            pc_mcsv_row_parse(d->first, d->first_len, &row);
            if (row.api_len != len || memcmp(d->first, api->full_name, len) != 0)
                break;
            if (!write_range(df, s->ddata, d)) {
                st = pc_error_set(PC_ERR_IO, "cannot write the merged details CSV: %s",
                                  strerror(errno));
                break;
            }
        }
        (*apis)++;
    }
    for (size_t i = 0; st == PC_OK && i < count; i++) {
        const shard_in *s = &sh[i];
        const char *extra = s->ri < s->rcount   ? s->rr[s->ri].first
                            : s->di < s->dcount ? s->dr[s->di].first
                                                : NULL;
        if (extra)
            st = pc_error_set(PC_ERR_INVALID,
                              "shard %u/%u (%s) holds rows the split does not give it (%s): its "
                              "CSVs are not of this split of this dump",
                              s->k, s->n, s->result, extra);
    }
    free(by_k);
    free(shard_of);
    return st;
}

/* The merged run's record: the shards' identity with shard 1/1, and where it came from. */
static pc_status write_record(const shard_in *sh, size_t count, const char *path,
                              const char *command)
{
    pc_run_identity *id = calloc(1, sizeof *id);
    if (!id)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        pc_json_ref obj = pass ? sh[0].about : sh[0].identity;
        for (pc_json_ref key = pc_json_first(sh[0].doc, obj);
             key != PC_JSON_NONE && id->count < PC_RUN_IDENTITY_MAX;
             key = pc_json_next(sh[0].doc, key)) {
            const char *name = pc_json_string(sh[0].doc, key, NULL);
            const char *value =
                pc_json_string(sh[0].doc, pc_json_member_value(sh[0].doc, key), NULL);
            if (!name || !value || (pass && strcmp(name, "workers") == 0))
                continue;
            pc_run_identity_field *f = &id->fields[id->count++];
            snprintf(f->key, sizeof f->key, "%s", name);
            snprintf(f->value, sizeof f->value, "%s", strcmp(name, "shard") == 0 ? "1/1" : value);
            f->decides = pass == 0;
        }
    }
    if (id->count < PC_RUN_IDENTITY_MAX) {
        pc_run_identity_field *f = &id->fields[id->count++];
        snprintf(f->key, sizeof f->key, "merged_from");
        size_t used = 0;
        /* absolute, so that the report finds the shards' runs from anywhere */
        for (size_t i = 0; i < count && used < sizeof f->value; i++) {
            char *abs = realpath(sh[i].record, NULL);
            used += (size_t)snprintf(f->value + used, sizeof f->value - used, "%s%s", i ? "; " : "",
                                     abs ? abs : sh[i].record);
            free(abs);
        }
    }
    pc_status st = pc_run_identity_write(id, path, command);
    free(id);
    return st;
}

/* The names a run started at `start` would take (pc_run_claim_names' pattern, or the next
 * second whose two names are both free), without creating them: merge puts its CSVs there only
 * once they are whole. */
static pc_status free_names(const char *out_dir, time_t start, char *ts, char *result,
                            size_t result_size, char *details, size_t details_size)
{
    for (int k = 0; k < 3600; k++) {
        time_t t = start + k;
        struct tm lt;
        localtime_r(&t, &lt);
        strftime(ts, 16, "%Y%m%d%H%M%S", &lt);
        snprintf(result, result_size, "%s/accuracy_checking_result_%s.csv", out_dir, ts);
        snprintf(details, details_size, "%s/accuracy_checking_details_%s.csv", out_dir, ts);
        struct stat st;
        if (lstat(result, &st) != 0 && errno == ENOENT && lstat(details, &st) != 0 &&
            errno == ENOENT)
            return PC_OK;
    }
    return pc_error_set(PC_ERR_IO,
                        "%s holds run_ut CSVs for every second of the hour after now; choose "
                        "another -o",
                        out_dir);
}

int pc_merge(const pc_merge_options *o)
{
    int rc = 1;
    shard_in *sh = calloc(o->input_count + 1, sizeof *sh);
    pc_dump *dump = NULL;
    bool *keep = NULL;
    char result[PC_PATH_BUFFER_SIZE + 80] = "", details[PC_PATH_BUFFER_SIZE + 80] = "";
    bool created = false, result_made = false;
    pc_file_out rf = {0}, df = {0};
    if (!sh) {
        pc_log_error("out of memory");
        return 1;
    }
    for (size_t i = 0; i < o->input_count; i++)
        if (load_shard(o->inputs[i], &sh[i]) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            goto out;
        }
    if (check_shards(sh, o->input_count) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    /* the dump: the one the shards ran (its digest), for its order and its split */
    const char *dump_path =
        o->api_info
            ? o->api_info
            : pc_json_string(sh[0].doc, pc_json_object_get(sh[0].doc, sh[0].about, "dump"), NULL);
    const char *want = ident_str(&sh[0], "dump_content");
    char digest[128];
    if (!dump_path) {
        pc_log_error("%s does not say which dump the shards ran: give it with -api_info",
                     sh[0].record);
        goto out;
    }
    /* the dump, checked as run_ut checks -api_info (a link is refused) */
    if (pc_path_check(dump_path, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0) != PC_OK ||
        pc_run_file_digest(dump_path, digest, sizeof digest) != PC_OK) {
        pc_log_error("%s (the dump the shards ran; if it moved, give it with -api_info)",
                     pc_error_message());
        goto out;
    }
    if (want && strcmp(digest, want) != 0) {
        pc_log_error("%s is not the dump the shards ran: its content differs from the one "
                     "recorded in %s. Give the shards' dump with -api_info.",
                     dump_path, sh[0].record);
        goto out;
    }
    if (pc_dump_open(&dump, dump_path) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    const char *filter = ident_str(&sh[0], "filter_api");
    if (filter && strcmp(filter, "yes") == 0) {
        keep = calloc(dump->api_count + 1, sizeof *keep);
        if (!keep || pc_dump_filter_dedup(dump, keep, NULL) != PC_OK) {
            pc_log_error("%s", keep ? pc_error_message() : "out of memory");
            goto out;
        }
    }
    /* the output: the names a run started now would take. Both CSVs are written as temporaries
     * and put in place at the end (io/file_out.h): a merge killed midway leaves no CSV under a
     * final name for a resume or a report to trust, and writes through no planted link. */
    const char *out_path = o->out_path && *o->out_path ? o->out_path : "./";
    char out_dir[PC_PATH_BUFFER_SIZE], ts[16];
    if (pc_path_make_dir(out_path) != PC_OK ||
        pc_path_check(out_path, PC_PATH_DIR, PC_PATH_WRITE, NULL, out_dir, sizeof out_dir) !=
            PC_OK ||
        free_names(out_dir, time(NULL), ts, result, sizeof result, details, sizeof details) !=
            PC_OK ||
        pc_file_out_open(&rf, result, 0) != PC_OK || pc_file_out_open(&df, details, 0) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    size_t apis = 0;
    pc_status st = write_rows(sh, o->input_count, dump, keep, rf.f, df.f, &apis);
    /* details first: a result CSV in place means its details are too */
    if (st == PC_OK && (st = pc_file_out_commit(&df)) == PC_OK) {
        created = true;
        if ((st = pc_file_out_commit(&rf)) == PC_OK)
            result_made = true;
    }
    if (st != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    char record[PC_PATH_BUFFER_SIZE + 80], command[4096];
    pc_run_identity_path(record, sizeof record, out_dir, ts);
    pc_run_command_line(command, sizeof command, o->argc, o->argv, NULL);
    if (write_record(sh, o->input_count, record, command) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    pc_log_info("Merged %zu shards (%zu APIs of %s) into %s and %s", o->input_count, apis,
                dump_path, result, details);
    created = result_made = false;
    rc = 0;
out:
    if (created) /* nothing half-made left behind (only what this merge put in place) */
        unlink(details);
    if (result_made)
        unlink(result);
    pc_file_out_free(&rf); /* removes a temporary not put in place */
    pc_file_out_free(&df);
    for (size_t i = 0; i < o->input_count; i++)
        free_shard(&sh[i]);
    free(sh);
    free(keep);
    pc_dump_free(dump);
    return rc;
}
