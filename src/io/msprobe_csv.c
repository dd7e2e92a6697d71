/* msprobe's CSV formats: headers, row names, whole files into records (io/msprobe_csv.h,
 * docs/msprobe-contract.md#formats). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/msprobe_csv.h"

/* ---- headers ---- */

static const char *const result_header[PC_MCSV_RESULT_COLUMNS] = {
    PC_MCSV_RESULT_FIRST,
    "Forward Test Success",
    "Backward Test Success",
    "Message",
};

static const char *const details_header[PC_MCSV_DETAILS_COLUMNS] = {
    [PC_MCSV_DET_API_NAME] = PC_MCSV_DETAILS_FIRST,
    [PC_MCSV_DET_BENCH_DTYPE] = "Bench Dtype",
    [PC_MCSV_DET_DEVICE_DTYPE] = "DEVICE Dtype",
    [PC_MCSV_DET_SHAPE] = "Shape",
    [PC_MCSV_DET_COSINE] = "余弦相似度",
    [PC_MCSV_DET_MAX_ABS_ERR] = "最大绝对误差",
    [PC_MCSV_DET_HUNDREDTH] = "双百指标",
    [PC_MCSV_DET_THOUSANDTH] = "双千指标",
    [PC_MCSV_DET_TEN_THOUSANDTH] = "双万指标",
    [PC_MCSV_DET_BINARY] = "二进制一致错误率",
    [PC_MCSV_DET_EB] = "误差均衡性",
    [PC_MCSV_DET_RMSE] = "均方根误差",
    [PC_MCSV_DET_SMALL_VALUE] = "小值域错误占比",
    [PC_MCSV_DET_MAX_REL] = "相对误差最大值",
    [PC_MCSV_DET_MEAN_REL] = "相对误差平均值",
    [PC_MCSV_DET_INF_NAN] = "inf/nan错误率",
    [PC_MCSV_DET_REL_ERR] = "相对误差错误率",
    [PC_MCSV_DET_ABS_ERR] = "绝对误差错误率",
    [PC_MCSV_DET_ULP_MAX] = "ULP误差最大值",
    [PC_MCSV_DET_ULP_MEAN] = "ULP误差平均值",
    [PC_MCSV_DET_ULP_PROP] = "ULP误差大于阈值占比",
    [PC_MCSV_DET_STATUS] = "Status",
    [PC_MCSV_DET_MESSAGE] = "Message",
};
_Static_assert(PC_MCSV_DET_MESSAGE + 1 == PC_MCSV_DETAILS_COLUMNS, "23 details columns");

static const char *const pcmp_result_header[PC_MCSV_PCMP_RESULT_COLUMNS] = {
    PC_MCSV_DETAILS_FIRST,
    "Forward Test Success",
    "Backward Test Success",
    "Message",
};

static const char *const pcmp_details_header[PC_MCSV_PCMP_DETAILS_COLUMNS] = {
    PC_MCSV_DETAILS_FIRST,
    "小值域错误比值",
    "小值域判定结果",
    "均方根误差比值",
    "均方根误差判定结果",
    "相对误差最大值比值",
    "相对误差最大值判定结果",
    "相对误差平均值比值",
    "相对误差平均值判定结果",
    "误差均衡性比值",
    "误差均衡性判定结果",
    "inf/nan错误率",
    "inf/nan判定结果",
    "相对误差错误率",
    "相对误差判定结果",
    "绝对误差错误率",
    "绝对误差判定结果",
    "二进制一致错误率",
    "二进制一致错误率判定结果",
    "ULP误差平均值",
    "ULP误差大于阈值占比",
    "ULP误差大于阈值占比比值",
    "ULP误差判定结果",
    "双千指标",
    "双千指标判定结果",
    [PC_MCSV_PCMP_DET_RESULT] = "比对结果",
    [PC_MCSV_PCMP_DET_ALGORITHM] = "比对算法",
    "Message",
};

static const struct {
    const char *const *header;
    size_t count;
    const char *stem;
} kinds[PC_MCSV_KIND_COUNT] = {
    [PC_MCSV_RESULT] = {result_header, PC_MCSV_RESULT_COLUMNS, "accuracy_checking_result"},
    [PC_MCSV_DETAILS] = {details_header, PC_MCSV_DETAILS_COLUMNS, "accuracy_checking_details"},
    [PC_MCSV_PCMP_RESULT] = {pcmp_result_header, PC_MCSV_PCMP_RESULT_COLUMNS,
                             "api_precision_compare_result"},
    [PC_MCSV_PCMP_DETAILS] = {pcmp_details_header, PC_MCSV_PCMP_DETAILS_COLUMNS,
                              "api_precision_compare_details"},
};

const char *const *pc_mcsv_header(pc_mcsv_kind kind, size_t *count)
{
    bool ok = (unsigned)kind < PC_MCSV_KIND_COUNT;
    if (count)
        *count = ok ? kinds[kind].count : 0;
    return ok ? kinds[kind].header : NULL;
}

const char *pc_mcsv_column(pc_mcsv_kind kind, size_t i)
{
    size_t n;
    const char *const *h = pc_mcsv_header(kind, &n);
    return i < n ? h[i] : NULL;
}

const char *pc_mcsv_kind_stem(pc_mcsv_kind kind)
{
    return (unsigned)kind < PC_MCSV_KIND_COUNT ? kinds[kind].stem : NULL;
}

/* ---- details row names ---- */

static const char FORWARD[] = ".forward.output", BACKWARD[] = ".backward.output";

int pc_mcsv_row_name(char *dst, size_t size, const char *api, bool backward, size_t output)
{
    return snprintf(dst, size, "%s%s.%zu", api, backward ? BACKWARD : FORWARD, output);
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len >= n && memcmp(s + len - n, tail, n) == 0;
}

bool pc_mcsv_row_parse(const char *name, size_t len, pc_mcsv_row *out)
{
    *out = (pc_mcsv_row){.api_len = len};
    /* the digits after the last dot, then the direction's mark before that dot */
    size_t dot = len;
    while (dot > 0 && name[dot - 1] >= '0' && name[dot - 1] <= '9')
        dot--;
    if (dot == len || dot == 0 || name[dot - 1] != '.')
        return false;
    size_t head = dot - 1; /* bytes before the last dot */
    bool backward = ends_with(name, head, BACKWARD);
    if (!backward && !ends_with(name, head, FORWARD))
        return false;
    size_t output = 0;
    for (size_t i = dot; i < len; i++) {
        size_t d = (size_t)(name[i] - '0');
        output = output > (SIZE_MAX - d) / 10 ? SIZE_MAX : output * 10 + d;
    }
    out->api_len = head - strlen(backward ? BACKWARD : FORWARD);
    out->backward = backward;
    out->has_output = true;
    out->output = output;
    return true;
}

bool pc_mcsv_pcmp_name_parse(const char *name, pc_mcsv_pcmp_name *out)
{
    /* Type.api.idx.dir.x.y -> api; Type.pre.api.idx.dir.x.y -> pre.api */
    const char *dots[6];
    int n = 0;
    for (const char *p = name; *p; p++)
        if (*p == '.' && n++ < 6)
            dots[n - 1] = p;
    memset(out, 0, sizeof *out);
    if (n != 5 && n != 6)
        return false;
    int api_end = n == 5 ? 1 : 2;
    size_t len = (size_t)(dots[api_end] - dots[0] - 1);
    if (len >= sizeof out->api)
        len = sizeof out->api - 1;
    memcpy(out->api, dots[0] + 1, len);
    out->full_len = (size_t)(dots[api_end + 1] - name);
    out->direction = dots[api_end + 1] + 1;
    out->direction_len = (size_t)(dots[api_end + 2] - out->direction);
    out->valid = true;
    return true;
}

/* ---- whole files into records ---- */

typedef pc_csv_record record;

pc_status pc_csv_records_split(const char *data, size_t n, record **out, size_t *count,
                               size_t *complete_end)
{
    size_t i = n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    size_t cap = 0, k = 0;
    record *r = NULL;
    *complete_end = i;
    while (i < n) {
        size_t start = i, fields = 1, term = 0;
        bool quoted = false, in_first = true;
        size_t fcap = 64, flen = 0;
        char *first = malloc(fcap);
        if (!first)
            goto nomem;
        bool done = false;
        while (i < n) {
            char c = data[i];
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < n && data[i + 1] == '"') {
                        i++;
                    } else {
                        quoted = false;
                        i++;
                        continue;
                    }
                }
            } else if (c == '"') {
                quoted = true;
                i++;
                continue;
            } else if (c == '\r' && i + 1 < n && data[i + 1] == '\n') {
                term = 2;
            } else if (c == '\n' || (c == '\r' && i + 1 < n)) {
                /* LF (dos2unix, pandas) or a lone CR ends a record as well; a CR at the very
                 * end of the data may be a CRLF cut in two: not complete */
                term = 1;
            } else if (c == ',') {
                in_first = false;
                fields++;
                i++;
                continue;
            }
            if (term) {
                i += term;
                done = true;
                break;
            }
            if (in_first) {
                if (flen + 1 >= fcap) {
                    char *g = realloc(first, fcap *= 2);
                    if (!g) {
                        free(first);
                        goto nomem;
                    }
                    first = g;
                }
                first[flen++] = c;
            }
            i++;
        }
        if (!done) {
            free(first);
            break;
        }
        first[flen] = 0;
        if (k == cap) {
            record *g = realloc(r, (cap = cap ? cap * 2 : 256) * sizeof *r);
            if (!g) {
                free(first);
                goto nomem;
            }
            r = g;
        }
        r[k++] = (record){start, i, first, flen, fields, term == 2};
        *complete_end = i;
    }
    *out = r;
    *count = k;
    return PC_OK;
nomem:
    for (size_t j = 0; j < k; j++)
        free(r[j].first);
    free(r);
    return pc_error_set(PC_ERR_NOMEM, "out of memory");
}

void pc_csv_records_free(record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].first);
    free(r);
}

pc_status pc_csv_file_read(const char *path, char **data, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pc_error_set(PC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *g = realloc(buf, cap *= 2);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf)
        return pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
    if (err) {
        free(buf);
        return pc_error_set(PC_ERR_IO, "cannot read %s", path);
    }
    *data = buf;
    *n = len;
    return PC_OK;
}
