#include "precheck/io/npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tensor_file.h"
#include "precheck/core/dtype.h"
#include "precheck/io/file_out.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "precheck's .npy reader and writer assume a little-endian machine"
#endif

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64
/* numpy leaves room for the first (C order) dimension to grow to this many digits. */
#define NPY_GROWTH_DIGITS 21

/* ---------------------------------------------------------------------------------------- */
/* The header: a Python dict literal                                                        */
/* ---------------------------------------------------------------------------------------- */

typedef struct npy_parsed {
    int major, minor;
    pc_dtype dtype;
    bool big_endian;
    bool fortran_order;
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    size_t data_offset;
    size_t nbytes;
} npy_parsed;

typedef struct hdr {
    const char *s;
    size_t n, pos;
    const char *origin;
} hdr;

static pc_status hdr_error(const hdr *h, const char *what)
{
    return pc_error_set(PC_ERR_FORMAT, "%s: .npy header, column %zu: %s", h->origin, h->pos + 1,
                        what);
}

static void skip_space(hdr *h)
{
    while (h->pos < h->n && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' || h->s[h->pos] == '\n' ||
                             h->s[h->pos] == '\r'))
        h->pos++;
}

/* Skips spaces, then takes c if it is next. */
static bool accept(hdr *h, char c)
{
    skip_space(h);
    if (h->pos < h->n && h->s[h->pos] == c) {
        h->pos++;
        return true;
    }
    return false;
}

/* A quoted string ('...' or "..."); *out points into the header, quotes excluded. */
static pc_status parse_string(hdr *h, const char **out, size_t *len)
{
    skip_space(h);
    if (h->pos >= h->n || (h->s[h->pos] != '\'' && h->s[h->pos] != '"'))
        return hdr_error(h, "expected a quoted string");
    char q = h->s[h->pos++];
    size_t start = h->pos;
    while (h->pos < h->n && h->s[h->pos] != q) {
        if (h->s[h->pos] == '\\' && h->pos + 1 < h->n)
            h->pos++;
        h->pos++;
    }
    if (h->pos >= h->n)
        return hdr_error(h, "a string is not closed");
    *out = h->s + start;
    *len = h->pos - start;
    h->pos++;
    return PC_OK;
}

static bool word_is(const hdr *h, const char *w)
{
    size_t n = strlen(w);
    if (h->n - h->pos < n || memcmp(h->s + h->pos, w, n) != 0)
        return false;
    /* a whole word: not followed by an identifier character */
    char c = h->pos + n < h->n ? h->s[h->pos + n] : ' ';
    return !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
             (c >= 'A' && c <= 'Z'));
}

static pc_status parse_bool(hdr *h, bool *out)
{
    skip_space(h);
    if (word_is(h, "True")) {
        h->pos += 4;
        *out = true;
        return PC_OK;
    }
    if (word_is(h, "False")) {
        h->pos += 5;
        *out = false;
        return PC_OK;
    }
    return hdr_error(h, "fortran_order is not True or False");
}

static pc_status parse_shape(hdr *h, npy_parsed *p)
{
    if (!accept(h, '('))
        return hdr_error(h, "shape is not a tuple");
    int rank = 0;
    bool comma = false;
    for (;;) {
        if (accept(h, ')'))
            break;
        if (rank > 0 && !comma)
            return hdr_error(h, "expected ',' or ')' in the shape");
        skip_space(h);
        if (h->pos >= h->n || h->s[h->pos] < '0' || h->s[h->pos] > '9') {
            if (h->pos < h->n && h->s[h->pos] == '-')
                return hdr_error(h, "the shape has a negative dimension");
            return hdr_error(h, "the shape holds something other than non-negative integers");
        }
        uint64_t v = 0;
        while (h->pos < h->n && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
            if (v > ((uint64_t)INT64_MAX - 9) / 10)
                return hdr_error(h, "a dimension of the shape is beyond int64");
            v = v * 10 + (uint64_t)(h->s[h->pos++] - '0');
        }
        if (h->pos < h->n && (h->s[h->pos] == 'L' || h->s[h->pos] == 'l'))
            h->pos++; /* Python 2 long, as old numpy wrote */
        if (rank == PC_TENSOR_MAX_DIMS) {
            char msg[96];
            snprintf(msg, sizeof msg, "the shape has more than %d dimensions, precheck's limit",
                     PC_TENSOR_MAX_DIMS);
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: .npy header: %s", h->origin, msg);
        }
        p->shape[rank++] = (int64_t)v;
        comma = accept(h, ',');
    }
    if (rank == 1 && !comma)
        return hdr_error(h, "the shape (n) is an integer in parentheses, not a tuple (n,)");
    p->rank = rank;
    return PC_OK;
}

/* A numpy descr ('<f4', '|b1', '>i8', ...) as a dtype of the table. */
static pc_status parse_descr(const char *origin, const char *s, size_t len, npy_parsed *p)
{
    char text[32];
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < sizeof text; i++) {
        unsigned char c = (unsigned char)s[i];
        text[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    text[k] = '\0';
    char order = len > 0 ? s[0] : '\0';
    const char *code = s;
    size_t code_len = len;
    if (order == '<' || order == '>' || order == '|' || order == '=') {
        code++;
        code_len--;
    } else {
        order = '=';
    }
    for (int i = 0; i < PC_DTYPE_COUNT; i++) {
        const pc_dtype_traits *t = pc_dtype_traits_of((pc_dtype)i);
        if (!t->npy_descr || strlen(t->npy_descr + 1) != code_len ||
            memcmp(t->npy_descr + 1, code, code_len) != 0)
            continue;
        p->dtype = (pc_dtype)i;
        p->big_endian = order == '>' && t->size > 1;
        return PC_OK;
    }
    const char *kind = "a dtype precheck does not read";
    switch (code_len ? code[0] : '\0') {
    case 'O':
        kind = "an object array (pickled Python objects), which precheck never loads";
        break;
    case 'U':
    case 'S':
    case 'a':
        kind = "a string array";
        break;
    case 'V':
        kind = "a void (raw bytes) array";
        break;
    case 'M':
    case 'm':
        kind = "a datetime array";
        break;
    case 'u':
        kind = "an unsigned integer type precheck does not have";
        break;
    case 'f':
    case 'c':
        kind = "a float type precheck does not have";
        break;
    default:
        break;
    }
    return pc_error_set(PC_ERR_UNSUPPORTED, "%s: .npy descr '%s' is %s", origin, text, kind);
}

static pc_status parse_header(hdr *h, npy_parsed *p)
{
    bool have_descr = false, have_order = false, have_shape = false;
    const char *descr = NULL;
    size_t descr_len = 0;
    pc_status st;
    if (!accept(h, '{'))
        return hdr_error(h, "the header is not a dict");
    for (;;) {
        if (accept(h, '}'))
            break;
        const char *key;
        size_t key_len;
        if ((st = parse_string(h, &key, &key_len)) != PC_OK)
            return st;
        if (!accept(h, ':'))
            return hdr_error(h, "expected ':' after a key");
        if (key_len == 5 && memcmp(key, "descr", 5) == 0) {
            skip_space(h);
            if (h->pos < h->n && h->s[h->pos] == '[')
                return pc_error_set(PC_ERR_UNSUPPORTED,
                                    "%s: .npy descr is a structured dtype (a list of fields), "
                                    "which precheck does not read",
                                    h->origin);
            if ((st = parse_string(h, &descr, &descr_len)) != PC_OK)
                return st;
            have_descr = true;
        } else if (key_len == 13 && memcmp(key, "fortran_order", 13) == 0) {
            if ((st = parse_bool(h, &p->fortran_order)) != PC_OK)
                return st;
            have_order = true;
        } else if (key_len == 5 && memcmp(key, "shape", 5) == 0) {
            if ((st = parse_shape(h, p)) != PC_OK)
                return st;
            have_shape = true;
        } else {
            char shown[40];
            size_t k = 0;
            for (size_t i = 0; i < key_len && k + 1 < sizeof shown; i++)
                shown[k++] = (key[i] >= 0x20 && key[i] < 0x7f) ? key[i] : '?';
            shown[k] = '\0';
            char msg[160];
            snprintf(msg, sizeof msg,
                     "unexpected key '%s' (the header has exactly 'descr', 'fortran_order' and "
                     "'shape')",
                     shown);
            return hdr_error(h, msg);
        }
        if (accept(h, ','))
            continue;
        if (accept(h, '}'))
            break;
        return hdr_error(h, "expected ',' or '}'");
    }
    skip_space(h);
    if (h->pos != h->n)
        return hdr_error(h, "text after the header's dict");
    if (!have_descr || !have_order || !have_shape)
        return pc_error_set(PC_ERR_FORMAT, "%s: .npy header lacks the key '%s'", h->origin,
                            !have_descr   ? "descr"
                            : !have_order ? "fortran_order"
                                          : "shape");
    return parse_descr(h->origin, descr, descr_len, p);
}

static pc_status parse(const unsigned char *d, size_t size, const char *origin, npy_parsed *p)
{
    memset(p, 0, sizeof *p);
    if (size >= 4 && memcmp(d, "PK\x03\x04", 4) == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: this is a zip archive (a .pt file?), not a .npy file", origin);
    if (size < NPY_MAGIC_LEN || memcmp(d, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        if (size < NPY_MAGIC_LEN && memcmp(d, NPY_MAGIC, size) == 0)
            return pc_error_set(PC_ERR_FORMAT, "%s: truncated .npy file of %zu bytes", origin,
                                size);
        return pc_error_set(PC_ERR_FORMAT, "%s: not a .npy file: it does not start with \\x93NUMPY",
                            origin);
    }
    if (size < NPY_MAGIC_LEN + 2)
        return pc_error_set(PC_ERR_FORMAT, "%s: truncated .npy file of %zu bytes", origin, size);
    p->major = d[6];
    p->minor = d[7];
    if (p->major < 1 || p->major > 3 || p->minor != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: .npy format version %d.%d is not supported (numpy writes 1.0, "
                            "2.0 and 3.0)",
                            origin, p->major, p->minor);
    size_t len_bytes = p->major == 1 ? 2 : 4;
    size_t pre = NPY_MAGIC_LEN + 2 + len_bytes;
    if (size < pre)
        return pc_error_set(PC_ERR_FORMAT, "%s: truncated .npy file of %zu bytes", origin, size);
    uint64_t hlen = p->major == 1 ? pc_le16(d + 8) : pc_le32(d + 8);
    if (hlen > size - pre)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: truncated .npy file: the header claims %" PRIu64
                            " bytes but the file has %zu after the preamble",
                            origin, hlen, size - pre);
    hdr h = {.s = (const char *)d + pre, .n = (size_t)hlen, .origin = origin};
    pc_status st = parse_header(&h, p);
    if (st != PC_OK)
        return st;
    p->data_offset = pre + (size_t)hlen;
    size_t nbytes;
    st = pc_tensor_check_shape(p->dtype, p->shape, p->rank, NULL, &nbytes);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s: .npy header", origin);
    if (nbytes > size - p->data_offset) {
        char shape[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(shape, sizeof shape, p->shape, p->rank);
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: truncated .npy file: shape %s of %s needs %zu bytes of data, "
                            "the file has %zu after its header",
                            origin, shape, pc_dtype_name(p->dtype), nbytes, size - p->data_offset);
    }
    p->nbytes = nbytes;
    return PC_OK;
}

static void fill_info(pc_npy_info *info, const npy_parsed *p, bool mapped)
{
    if (!info)
        return;
    info->version_major = p->major;
    info->version_minor = p->minor;
    info->fortran_order = p->fortran_order;
    info->big_endian = p->big_endian;
    info->mapped = mapped;
}

/* The tensor over storage: numpy's C or Fortran layout. Drops the caller's reference. */
static pc_status make_tensor(pc_tensor *out, const npy_parsed *p, pc_storage *s, const char *origin)
{
    int64_t strides[PC_TENSOR_MAX_DIMS];
    if (p->fortran_order) {
        int64_t step = 1;
        for (int i = 0; i < p->rank; i++) {
            strides[i] = step;
            step *= p->shape[i] > 1 ? p->shape[i] : 1;
        }
    } else {
        pc_shape_contiguous_strides(p->shape, p->rank, strides);
    }
    pc_tensor t;
    pc_status st = pc_tensor_from_storage(&t, s, p->dtype, p->shape, strides, p->rank, 0);
    pc_storage_unref(s);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", origin);
    *out = t;
    return PC_OK;
}

static pc_status copy_data(const unsigned char *d, const npy_parsed *p, pc_storage **out,
                           const char *origin)
{
    pc_storage *s;
    pc_status st = pc_storage_alloc(&s, p->nbytes);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", origin);
    if (p->nbytes)
        memcpy(pc_storage_data(s), d + p->data_offset, p->nbytes);
    if (p->big_endian)
        pc_swap_elements(pc_storage_data(s), p->nbytes / pc_dtype_size(p->dtype), p->dtype);
    *out = s;
    return PC_OK;
}

pc_status pc_npy_read_buffer(const void *data, size_t size, const char *origin, pc_tensor *out,
                             pc_npy_info *info)
{
    if (!origin)
        origin = "<memory>";
    npy_parsed p;
    pc_status st = parse(data, size, origin, &p);
    if (st != PC_OK)
        return st;
    pc_storage *s;
    if ((st = copy_data(data, &p, &s, origin)) != PC_OK)
        return st;
    if ((st = make_tensor(out, &p, s, origin)) != PC_OK)
        return st;
    fill_info(info, &p, false);
    return PC_OK;
}

pc_status pc_npy_read_file(const char *path, pc_tensor *out, pc_npy_info *info)
{
    pc_file_map map;
    pc_status st = pc_file_map_open(&map, path, "a .npy file");
    if (st != PC_OK)
        return st;
    npy_parsed p;
    st = parse(map.base, map.size, path, &p);
    if (st != PC_OK) {
        pc_file_map_close(&map);
        return st;
    }
    pc_storage *s;
    bool mapped = pc_file_map_can_wrap(p.data_offset, p.nbytes, p.dtype);
    if (mapped) {
        st = pc_file_map_wrap(&map, p.data_offset, p.nbytes, p.big_endian,
                              p.nbytes / pc_dtype_size(p.dtype), p.dtype, path, &s);
        if (st != PC_OK)
            return st;
    } else {
        st = copy_data(map.base, &p, &s, path);
        pc_file_map_close(&map);
        if (st != PC_OK)
            return st;
    }
    if ((st = make_tensor(out, &p, s, path)) != PC_OK)
        return st;
    fill_info(info, &p, mapped);
    return PC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* numpy's header for a C-order little-endian array, padded as np.save pads it; returns its
 * length (preamble included) or 0 when it does not fit in buf. */
static size_t build_header(unsigned char *buf, size_t cap, const pc_tensor *t)
{
    char dict[2048];
    size_t n = 0;
    n += (size_t)snprintf(dict + n, sizeof dict - n,
                          "{'descr': '%s', 'fortran_order': False, 'shape': (",
                          pc_dtype_traits_of(t->dtype)->npy_descr);
    for (int i = 0; i < t->rank; i++)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%" PRId64, i ? ", " : "", t->shape[i]);
    n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", t->rank == 1 ? "," : "");
    if (t->rank > 0) {
        char first[24];
        int digits = snprintf(first, sizeof first, "%" PRId64, t->shape[0]);
        for (int i = digits; i < NPY_GROWTH_DIGITS; i++)
            dict[n++] = ' ';
    }
    /* hlen counts the final newline; padding brings magic + length + header to a multiple of
     * 64 (and is never 0: a full 64 when it already is one, as numpy does). */
    size_t hlen = n + 1;
    int major = 1;
    size_t pre = NPY_MAGIC_LEN + 2 + 2;
    size_t pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
    if (hlen + pad > 0xFFFF) {
        major = 2;
        pre = NPY_MAGIC_LEN + 2 + 4;
        pad = NPY_ALIGN - (pre + hlen) % NPY_ALIGN;
    }
    size_t total = pre + hlen + pad;
    if (total > cap)
        return 0;
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    if (major == 1)
        pc_put_le16(buf + 8, (uint16_t)(hlen - 1 + pad + 1));
    else
        pc_put_le32(buf + 8, (uint32_t)(hlen - 1 + pad + 1));
    memcpy(buf + pre, dict, n);
    memset(buf + pre + n, ' ', pad);
    buf[total - 1] = '\n';
    return total;
}

static pc_status write_npy(const pc_tensor *t, pc_byte_sink *sink)
{
    if (pc_tensor_is_null(t))
        return pc_error_set(PC_ERR_INVALID, "%s: cannot save the null tensor", sink->origin);
    if (!pc_dtype_traits_of(t->dtype)->npy_descr)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: numpy has no dtype for %s; it cannot be saved "
                            "as .npy",
                            sink->origin, pc_dtype_torch_name(t->dtype));
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&c, t);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", sink->origin);
    unsigned char header[4096];
    size_t hn = build_header(header, sizeof header, &c);
    st = pc_byte_sink_write(sink, header, hn);
    if (st == PC_OK)
        st = pc_byte_sink_write(sink, pc_tensor_data(&c), pc_tensor_nbytes(&c));
    pc_tensor_free(&c);
    return st;
}

pc_status pc_npy_write_buffer(const pc_tensor *t, void **data, size_t *size)
{
    pc_byte_sink sink = {.fd = -1, .origin = "<memory>"};
    pc_status st = write_npy(t, &sink);
    if (st != PC_OK) {
        pc_strbuf_reset(&sink.mem);
        return st;
    }
    *data = pc_strbuf_finish(&sink.mem, size);
    return *data ? PC_OK : pc_error_set(PC_ERR_NOMEM, "writing a .npy to memory: out of memory");
}

pc_status pc_npy_write_file(const char *path, const pc_tensor *t, unsigned flags)
{
    /* file_out.h: a fresh temporary beside path (never through a link), then into place */
    pc_file_out out;
    pc_status st = pc_file_out_open(&out, path, flags);
    if (st != PC_OK)
        return st;
    pc_byte_sink sink = {.fd = fileno(out.f), .origin = path};
    st = write_npy(t, &sink);
    if (st == PC_OK)
        st = pc_file_out_commit(&out);
    pc_file_out_free(&out);
    return st;
}
