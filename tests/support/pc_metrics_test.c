#include "pc_metrics_test.h"

#include <math.h>
#include <string.h>

#include "pc_test.h"

static int same_cell(const pc_csv_cell *a, const pc_csv_cell *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case PC_CSV_F64:
        return pc_test_same_f64(a->v.f64, b->v.f64);
    case PC_CSV_F32:
        return memcmp(&a->v.f32, &b->v.f32, 4) == 0 || (isnan(a->v.f32) && isnan(b->v.f32));
    case PC_CSV_F16:
        return a->v.f16 == b->v.f16;
    case PC_CSV_INT:
        return a->v.i64 == b->v.i64;
    default:
        return 1;
    }
}

void pc_test_assert_same_metrics(const pc_metrics_result *a, const pc_metrics_result *b,
                                 const char *what)
{
    int ok = same_cell(&a->cosine, &b->cosine) && same_cell(&a->max_abs_err, &b->max_abs_err) &&
             a->cosine_pass == b->cosine_pass && strcmp(a->cosine_message, b->cosine_message) == 0;
    for (int k = 0; k < 3; k++)
        ok = ok && pc_test_same_f64(a->rel_err_ratio[k], b->rel_err_ratio[k]);
    for (int i = 0; i < PC_METRIC_COUNT; i++) {
        if (!same_cell(&a->cells[i], &b->cells[i])) {
            char x[64], y[64];
            pc_csv_format_cell(x, sizeof x, &a->cells[i], 17);
            pc_csv_format_cell(y, sizeof y, &b->cells[i], 17);
            print_error("%s: %s differs: %s vs %s\n", what, pc_metric_column((pc_metric)i), x, y);
            ok = 0;
        }
    }
    if (!ok) {
        print_error("%s: results differ\n", what);
        fail();
    }
}
