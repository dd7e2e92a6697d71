/* For test_op_generate.c and test_repro.c: a script's --csv rows against run_ut's details
 * rows of the same API (same names, dtypes, shapes and Status; every metric cell the same
 * kind, numbers equal to the printed precision: %.14f cells within 2e-14, float32 reprs
 * within a float32 rounding). */
#ifndef PC_TEST_REPRO_ROWS_H
#define PC_TEST_REPRO_ROWS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/io/csv_read.h"

enum { REPRO_ROWS_MAX = 64, REPRO_COLS = 23 };

typedef struct repro_row {
    char cell[REPRO_COLS][160];
} repro_row;

/* The rows of csv whose name starts with prefix (the header skipped). */
static int repro_rows_read(const char *csv, const char *prefix, repro_row *rows)
{
    pc_csv_reader *r = NULL;
    assert_int_equal(pc_csv_reader_open(csv, &r), PC_OK);
    int n = 0;
    bool has = false, header = true;
    while (pc_csv_reader_next(r, &has) == PC_OK && has) {
        if (header) {
            header = false;
            continue;
        }
        const char *name = pc_csv_reader_field(r, 0, NULL);
        if (strncmp(name, prefix, strlen(prefix)) != 0)
            continue;
        assert_true(n < REPRO_ROWS_MAX);
        assert_int_equal(pc_csv_reader_field_count(r), REPRO_COLS);
        for (int c = 0; c < REPRO_COLS; c++)
            snprintf(rows[n].cell[c], sizeof rows[n].cell[c], "%s",
                     pc_csv_reader_field(r, (size_t)c, NULL));
        n++;
    }
    pc_csv_reader_free(r);
    return n;
}

static bool repro_cell_same(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    if (strcmp(a, " ") == 0 || strcmp(b, " ") == 0)
        return false;
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*ea || *eb)
        return false;
    bool f32 = strchr(b, 'e') || (strchr(b, '.') && strlen(strchr(b, '.')) != 15);
    double tol = f32 ? 2e-7 * fabs(y) + 1e-45 : 2e-14;
    return fabs(x - y) <= tol;
}

/* Every row of script_csv matches the row of the same name in details_csv, and details_csv
 * has no other row of the script's direction. */
static void pc_test_assert_same_rows(const char *script_csv, const char *details_csv,
                                     const char *api)
{
    static repro_row mine[REPRO_ROWS_MAX], theirs[REPRO_ROWS_MAX];
    int n = repro_rows_read(script_csv, api, mine);
    assert_true(n > 0);
    char prefix[512];
    /* the direction of the script's rows: "<api>.forward." or "<api>.backward." */
    const char *dir = mine[0].cell[0] + strlen(api) + 1;
    PC_TEST_FMT(prefix, "%s.%.*s", api, (int)(strchr(dir, '.') - dir + 1), dir);
    int m = repro_rows_read(details_csv, prefix, theirs);
    if (m != n) {
        fprintf(stderr, "%s: %d rows from the script, %d from run_ut\n", prefix, n, m);
        fail();
    }
    for (int i = 0; i < n; i++) {
        const repro_row *a = &mine[i], *b = &theirs[i];
        bool ok = strcmp(a->cell[0], b->cell[0]) == 0;
        for (int c = 1; c < 4 && ok; c++)
            ok = strcmp(a->cell[c], b->cell[c]) == 0;
        ok = ok && strcmp(a->cell[21], b->cell[21]) == 0; /* Status */
        for (int c = 4; c < 21 && ok; c++)
            ok = repro_cell_same(a->cell[c], b->cell[c]);
        if (!ok) {
            fprintf(stderr, "script row and run_ut row differ:\n");
            for (int c = 0; c < 22; c++)
                fprintf(stderr, "  %2d  %-24s %s\n", c, a->cell[c], b->cell[c]);
            fail();
        }
    }
}

#endif
