/*
 * Conformance with msprobe's own numbers: run_ut's -save_error_data wrote the bench and device
 * outputs (.pt) of every API that did not pass, next to the details CSV msprobe wrote for the
 * same run (tests/fixtures/msprobe/run_ut/<case>_save_error_data/). For every details row whose
 * two tensors are there, precheck's row must have the same text in every cell; the cosine may
 * differ in its last printed digit (BLAS sums in its own order), which is counted and printed.
 *
 * Set PC_CONFORMANCE_VERBOSE=1 to print every compared row.
 */
#include "pc_test.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/compare/compare.h"
#include "precheck/io/pt.h"

#ifndef PC_TEST_FIXTURES
#error "PC_TEST_FIXTURES must name the fixtures directory"
#endif

/* ---- a small reader for the fixture CSVs (Python csv dialect) ---- */

typedef struct csv_row {
    char *fields[32];
    int n;
} csv_row;

/* Parses one record at *p (fields unquoted in place); false at the end. */
static bool next_record(char **p, csv_row *row)
{
    char *s = *p;
    if (!*s)
        return false;
    row->n = 0;
    for (;;) {
        char *out = s, *start = s;
        if (*s == '"') {
            s++;
            for (;;) {
                if (*s == '"' && s[1] == '"') {
                    *out++ = '"';
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    *out++ = *s++;
                }
            }
        } else {
            while (*s && *s != ',' && *s != '\r' && *s != '\n')
                *out++ = *s++;
        }
        char sep = *s;
        *out = '\0';
        if (row->n < 32)
            row->fields[row->n++] = start;
        if (sep == ',') {
            s++;
            continue;
        }
        if (sep == '\r')
            s++;
        if (*s == '\n')
            s++;
        break;
    }
    *p = s;
    return true;
}

/* ---- the comparison ---- */

typedef struct tally {
    int rows, cells, cos_last_digit, mismatches;
    double cos_max_diff;
} tally;

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static void check_row(const char *dir, const csv_row *want, tally *t, bool verbose, bool blas)
{
    const char *name = want->fields[0];
    const char *dirs[] = {".forward.output.", ".backward.output."};
    const char *hit = NULL;
    int which = -1;
    for (int k = 0; k < 2 && !hit; k++) {
        hit = strstr(name, dirs[k]);
        which = k;
    }
    if (!hit)
        return;
    char full[512], path_b[4096], path_d[4096];
    snprintf(full, sizeof full, "%.*s", (int)(hit - name), name);
    const char *index = hit + strlen(dirs[which]);
    const char *kind = which == 0 ? "forward" : "backward";
    snprintf(path_b, sizeof path_b, "%s/%s.%s.output.bench.%s.pt", dir, full, kind, index);
    snprintf(path_d, sizeof path_d, "%s/%s.%s.output.device.%s.pt", dir, full, kind, index);
    if (!file_exists(path_b) || !file_exists(path_d))
        return;

    pc_tensor tb = PC_TENSOR_NULL, td = PC_TENSOR_NULL;
    assert_int_equal(pc_pt_read_file(path_b, &tb, NULL), PC_OK);
    assert_int_equal(pc_pt_read_file(path_d, &td, NULL), PC_OK);
    /* the basic API name, as compare_output takes it */
    char api[256];
    const char *p1 = strchr(full, '.');
    const char *p_last = strrchr(full, '.');
    snprintf(api, sizeof api, "%.*s", (int)(p_last - p1 - 1), p1 + 1);

    pc_cmp_value b = pc_cmp_tensor(&tb), d = pc_cmp_tensor(&td);
    pc_detail_row row;
    pc_compare_options opt = {.threads = 0, .cosine_blas_order = blas};
    assert_int_equal(pc_compare_item(&row, api, &b, &d, &opt), PC_OK);
    pc_csv_cell cells[PC_DETAILS_COLUMNS];
    pc_detail_row_cells(&row, name, cells);
    assert_int_equal(want->n, PC_DETAILS_COLUMNS);
    t->rows++;
    for (int i = 0; i < PC_DETAILS_COLUMNS; i++) {
        char got[4096];
        pc_csv_format_cell(got, sizeof got, &cells[i], 14);
        t->cells++;
        if (strcmp(got, want->fields[i]) == 0)
            continue;
        if (i == 4 && cells[i].kind == PC_CSV_F64) {
            double diff = fabs(atof(got) - atof(want->fields[i]));
            if (diff <= 1.5e-14) {
                t->cos_last_digit++;
                if (diff > t->cos_max_diff)
                    t->cos_max_diff = diff;
                print_message("cosine last digit: %s: precheck %s, msprobe %s\n", name, got,
                              want->fields[i]);
                continue;
            }
        }
        t->mismatches++;
        print_error("%s column %d (%s): precheck \"%s\", msprobe \"%s\"\n", name, i,
                    pc_details_column((size_t)i), got, want->fields[i]);
    }
    if (verbose)
        print_message("compared %s (%s vs %s, %lld elements)\n", name, pc_dtype_name(tb.dtype),
                      pc_dtype_name(td.dtype), (long long)pc_tensor_numel(&td));
    pc_tensor_free(&tb);
    pc_tensor_free(&td);
}

static void run_case(const char *case_dir, int min_rows, bool blas)
{
    char base[1024];
    snprintf(base, sizeof base, "%s/msprobe/run_ut/%s", PC_TEST_FIXTURES, case_dir);
    DIR *dh = opendir(base);
    assert_non_null(dh);
    char details[2048] = "", errdir[2048] = "";
    struct dirent *e;
    while ((e = readdir(dh))) {
        if (strncmp(e->d_name, "accuracy_checking_details_", 26) == 0)
            snprintf(details, sizeof details, "%s/%s", base, e->d_name);
        if (strncmp(e->d_name, "ut_error_data", 13) == 0)
            snprintf(errdir, sizeof errdir, "%s/%s", base, e->d_name);
    }
    closedir(dh);
    assert_true(details[0] && errdir[0]);
    size_t size = 0;
    char *text = pc_test_slurp(details, &size);
    assert_non_null(text);
    char *p = text;
    if (size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    csv_row row;
    assert_true(next_record(&p, &row)); /* header */
    for (int i = 0; i < PC_DETAILS_COLUMNS; i++)
        assert_string_equal(row.fields[i], pc_details_column((size_t)i));
    const char *v = getenv("PC_CONFORMANCE_VERBOSE");
    bool verbose = v && *v == '1';
    tally t = {0};
    while (next_record(&p, &row))
        check_row(errdir, &row, &t, verbose, blas);
    free(text);
    print_message("%s (%s cosine): %d rows, %d cells compared; %d cosines differ in the last "
                  "digit (at most %.1e); %d cells differ\n",
                  case_dir, blas ? "reference-BLAS order" : "fused", t.rows, t.cells,
                  t.cos_last_digit, t.cos_max_diff, t.mismatches);
    assert_true(t.rows >= min_rows);
    assert_int_equal(t.mismatches, 0);
    /* msprobe's numpy here was linked with the reference BLAS: its order gives every digit */
    if (blas)
        assert_int_equal(t.cos_last_digit, 0);
}

static void gpt_bf16(void **state)
{
    run_case("gpt_bf16_tensor_save_error_data", 20, false);
}

static void gpt_fp32(void **state)
{
    run_case("gpt_tensor_save_error_data", 3, false);
}

static void gpt_bf16_blas_order(void **state)
{
    run_case("gpt_bf16_tensor_save_error_data", 20, true);
}

static void gpt_fp32_blas_order(void **state)
{
    run_case("gpt_tensor_save_error_data", 3, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpt_bf16),
        cmocka_unit_test(gpt_fp32),
        cmocka_unit_test(gpt_bf16_blas_order),
        cmocka_unit_test(gpt_fp32_blas_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
