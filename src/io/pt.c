#include "precheck/io/pt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pickle.h"
#include "io/pt_impl.h"
#include "io/tensor_file.h"
#include "io/zip.h"
#include "precheck/core/dtype.h"
#include "precheck/io/file_out.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "precheck's .pt reader and writer assume a little-endian machine"
#endif

/* How many wrappers (_rebuild_parameter, _rebuild_from_type_v2, ...) may sit around the
 * tensor; torch nests at most two. */
#define MAX_WRAPPERS 8

/* ---------------------------------------------------------------------------------------- */
/* Reading                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Everything the pickle said about the tensor, and where its bytes are. */
typedef struct pt_parsed {
    pc_dtype dtype;
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t strides[PC_TENSOR_MAX_DIMS];
    int64_t offset;
    uint64_t data_offset; /* of the storage's bytes in the file */
    uint64_t data_nbytes; /* = storage numel x element size */
    pc_pt_info info;
} pt_parsed;

/* What the reader needs while the pickle tree is alive. */
typedef struct pt_reader {
    const char *origin;
    char pkl_origin[PC_ERROR_MESSAGE_MAX / 2]; /* "<origin>: data.pkl" */
    pc_zip zip;
    pc_pk_text archive; /* the name prefix, without '/' */
    pt_parsed *out;
    const pc_pk_value *storage_key;
} pt_reader;

static bool starts_with(const unsigned char *d, size_t size, const char *magic, size_t n)
{
    return size >= n && memcmp(d, magic, n) == 0;
}

/* Rejects, with a message that says what the file is, inputs that are not zip archives. */
static pc_status check_magic(const char *origin, const unsigned char *d, size_t size)
{
    static const char legacy[] = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";
    if (starts_with(d, size, legacy, sizeof legacy - 1))
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: this is the legacy torch.save format (torch before 1.6, or "
                            "_use_new_zipfile_serialization=False), which precheck does not read; "
                            "load it with torch and save it again with torch.save(t, path)",
                            origin);
    if (starts_with(d, size, "\x93NUMPY", 6))
        return pc_error_set(PC_ERR_FORMAT, "%s: this is a .npy file, not a .pt file", origin);
    if (size >= 2 && d[0] == 0x80 && d[1] <= 5)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: this is a bare pickle, not a torch.save zip archive (the legacy "
                            "torch.save format or pickle.dump); precheck reads only the zip "
                            "format of torch 1.6 and later",
                            origin);
    return PC_OK;
}

static pc_status pkl_error(pt_reader *r, pc_status status, const char *what)
{
    return pc_error_set(status, "%s: %s", r->pkl_origin, what);
}

/* The zip member "<archive>/<record>", or NULL. */
static const pc_zip_entry *find_record(pt_reader *r, const char *record, size_t record_len)
{
    char name[512];
    size_t n = r->archive.len;
    if (n + 1 + record_len > sizeof name)
        return NULL;
    memcpy(name, r->archive.data, n);
    name[n] = '/';
    memcpy(name + n + 1, record, record_len);
    return pc_zip_find(&r->zip, name, n + 1 + record_len);
}

static bool get_int(const pc_pk_value *v, int64_t *out)
{
    if (v->kind == PC_PK_INT) {
        *out = v->u.integer;
        return true;
    }
    if (v->kind == PC_PK_BOOL) {
        *out = v->u.boolean;
        return true;
    }
    return false;
}

/* A size or stride argument: a tuple or list of ints, or torch.Size((...)). */
static pc_status get_dims(pt_reader *r, const pc_pk_value *v, const char *what, int64_t *dims,
                          int *rank)
{
    if (v->kind == PC_PK_CALL && pc_pk_is_global(v->u.call.callable, "torch", "Size") &&
        v->u.call.args->u.seq.count == 1)
        v = v->u.call.args->u.seq.items[0];
    char msg[256];
    if (v->kind != PC_PK_TUPLE && v->kind != PC_PK_LIST) {
        char desc[96];
        pc_pk_describe(v, desc, sizeof desc);
        snprintf(msg, sizeof msg, "the tensor's %s is %s, not a tuple of ints", what, desc);
        return pkl_error(r, PC_ERR_FORMAT, msg);
    }
    size_t n = v->u.seq.count;
    if (n > PC_TENSOR_MAX_DIMS) {
        snprintf(msg, sizeof msg, "the tensor has %zu dimensions; precheck supports up to %d", n,
                 PC_TENSOR_MAX_DIMS);
        return pkl_error(r, PC_ERR_UNSUPPORTED, msg);
    }
    for (size_t i = 0; i < n; i++) {
        if (!get_int(v->u.seq.items[i], &dims[i])) {
            snprintf(msg, sizeof msg, "the tensor's %s has a non-integer in dimension %zu", what,
                     i);
            return pkl_error(r, PC_ERR_FORMAT, msg);
        }
        if (dims[i] < 0) {
            snprintf(msg, sizeof msg, "the tensor's %s is negative (%" PRId64 ") in dimension %zu",
                     what, dims[i], i);
            return pkl_error(r, PC_ERR_FORMAT, msg);
        }
    }
    *rank = (int)n;
    return PC_OK;
}

static void copy_text(char *dst, size_t size, const pc_pk_text *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->len && k + 1 < size; i++) {
        unsigned char c = (unsigned char)t->data[i];
        dst[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    dst[k] = '\0';
}

/* ('storage', torch.<Kind>Storage, key, location, numel) */
static pc_status read_storage_id(pt_reader *r, const pc_pk_value *v)
{
    if (v->kind != PC_PK_PERSID)
        return pkl_error(r, PC_ERR_FORMAT,
                         "the tensor's first argument is not a storage (persistent id)");
    const pc_pk_value *pid = v->u.persid;
    if (pid->kind != PC_PK_TUPLE || pid->u.seq.count != 5 ||
        pid->u.seq.items[0]->kind != PC_PK_STRING ||
        !pc_pk_text_is(&pid->u.seq.items[0]->u.text, "storage"))
        return pkl_error(r, PC_ERR_FORMAT,
                         "the persistent id is not ('storage', class, key, location, numel)");
    const pc_pk_value *cls = pid->u.seq.items[1], *key = pid->u.seq.items[2],
                      *loc = pid->u.seq.items[3], *numel = pid->u.seq.items[4];
    char msg[256];
    if (cls->kind != PC_PK_GLOBAL || !pc_pk_text_is(&cls->u.global.module, "torch")) {
        char desc[96];
        pc_pk_describe(cls, desc, sizeof desc);
        snprintf(msg, sizeof msg, "the storage class is %s, not a torch storage class", desc);
        return pkl_error(r, PC_ERR_FORMAT, msg);
    }
    char name[64];
    copy_text(name, sizeof name, &cls->u.global.name);
    pc_dtype dtype =
        cls->u.global.name.len < sizeof name ? pc_dtype_from_storage_name(name) : PC_DTYPE_INVALID;
    if (dtype == PC_DTYPE_INVALID) {
        if (strncmp(name, "Q", 1) == 0 && strstr(name, "Storage"))
            snprintf(msg, sizeof msg,
                     "storage class torch.%s holds a quantized tensor, which precheck does not "
                     "support",
                     name);
        else
            snprintf(msg, sizeof msg,
                     "storage class torch.%s is not one precheck supports (dtype unknown)", name);
        return pkl_error(r, PC_ERR_UNSUPPORTED, msg);
    }
    if (key->kind != PC_PK_STRING)
        return pkl_error(r, PC_ERR_FORMAT, "the storage key is not a string");
    if (loc->kind != PC_PK_STRING)
        return pkl_error(r, PC_ERR_FORMAT, "the storage location is not a string");
    if (numel->kind != PC_PK_INT || numel->u.integer < 0)
        return pkl_error(r, PC_ERR_FORMAT,
                         "the storage size is not an integer of 0 or more elements");
    pt_parsed *p = r->out;
    p->dtype = dtype;
    p->info.storage_numel = numel->u.integer;
    copy_text(p->info.location, sizeof p->info.location, &loc->u.text);
    r->storage_key = key;
    return PC_OK;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) and
 * its relatives: the first four arguments (and the fifth when has_grad). */
static pc_status read_tensor_args(pt_reader *r, pc_pk_value *const *a, bool has_grad)
{
    pc_status st = read_storage_id(r, a[0]);
    if (st != PC_OK)
        return st;
    pt_parsed *p = r->out;
    if (!get_int(a[1], &p->offset) || p->offset < 0)
        return pkl_error(r, PC_ERR_FORMAT, "the storage offset is not an integer of 0 or more");
    int stride_rank;
    if ((st = get_dims(r, a[2], "size", p->shape, &p->rank)) != PC_OK ||
        (st = get_dims(r, a[3], "stride", p->strides, &stride_rank)) != PC_OK)
        return st;
    if (stride_rank != p->rank) {
        char msg[128];
        snprintf(msg, sizeof msg, "the tensor's size has %d dimensions but its stride has %d",
                 p->rank, stride_rank);
        return pkl_error(r, PC_ERR_FORMAT, msg);
    }
    if (has_grad) {
        if (a[4]->kind != PC_PK_BOOL)
            return pkl_error(r, PC_ERR_FORMAT, "requires_grad is not a bool");
        p->info.requires_grad = a[4]->u.boolean;
    }
    return PC_OK;
}

static pc_status not_a_tensor(pt_reader *r, const pc_pk_value *v, const char *why)
{
    char desc[160], msg[320];
    pc_pk_describe(v, desc, sizeof desc);
    snprintf(msg, sizeof msg, "the file holds %s%s", desc, why);
    return pkl_error(r, PC_ERR_UNSUPPORTED, msg);
}

static pc_status wrong_args(pt_reader *r, const pc_pk_value *callable, size_t n)
{
    char module[96], name[96], msg[320];
    copy_text(module, sizeof module, &callable->u.global.module);
    copy_text(name, sizeof name, &callable->u.global.name);
    snprintf(msg, sizeof msg, "%s.%s is called with %zu arguments, which is not what torch writes",
             module, name, n);
    return pkl_error(r, PC_ERR_FORMAT, msg);
}

/* Reads the tensor that the pickle's result builds. */
static pc_status read_tensor(pt_reader *r, const pc_pk_value *top)
{
    const pc_pk_value *callable = NULL, *args = NULL;
    if (top->kind == PC_PK_CALL) {
        callable = top->u.call.callable;
        args = top->u.call.args;
    }
    bool grad_override = false, grad = false;
    for (int depth = 0; depth < MAX_WRAPPERS; depth++) {
        if (!callable || callable->kind != PC_PK_GLOBAL)
            return not_a_tensor(r, top, ", not a single tensor");
        pc_pk_value *const *a = args->u.seq.items;
        size_t n = args->u.seq.count;
        pc_status st;
        if (pc_pk_is_global(callable, "torch._utils", "_rebuild_tensor_v2")) {
            if (n != 6 && n != 7)
                return wrong_args(r, callable, n);
            st = read_tensor_args(r, a, true);
        } else if (pc_pk_is_global(callable, "torch_npu.utils.storage", "_rebuild_npu_tensor")) {
            if (n != 7)
                return wrong_args(r, callable, n);
            st = read_tensor_args(r, a, true);
            const pc_pk_value *fmt = a[6];
            /* torch_npu.npu._format.Format(<int>) or a plain int */
            if (fmt->kind == PC_PK_CALL && fmt->u.call.args->u.seq.count == 1)
                fmt = fmt->u.call.args->u.seq.items[0];
            int64_t f;
            if (st == PC_OK && (!get_int(fmt, &f) || f < INT32_MIN || f > INT32_MAX))
                return pkl_error(r, PC_ERR_FORMAT, "the NPU format argument is not an integer");
            if (st == PC_OK)
                r->out->info.npu_format = (int)f;
        } else if (pc_pk_is_global(callable, "torch._utils", "_rebuild_tensor")) {
            if (n != 4)
                return wrong_args(r, callable, n);
            st = read_tensor_args(r, a, false);
        } else if (pc_pk_is_global(callable, "torch._utils", "_rebuild_parameter") ||
                   pc_pk_is_global(callable, "torch._utils", "_rebuild_parameter_with_state")) {
            if (n < 2 || a[0]->kind != PC_PK_CALL || a[1]->kind != PC_PK_BOOL)
                return wrong_args(r, callable, n);
            if (!grad_override) {
                grad_override = true;
                grad = a[1]->u.boolean;
            }
            callable = a[0]->u.call.callable;
            args = a[0]->u.call.args;
            continue;
        } else if (pc_pk_is_global(callable, "torch._tensor", "_rebuild_from_type_v2") ||
                   pc_pk_is_global(callable, "torch._tensor", "_rebuild_from_type")) {
            /* (func, type, args, state): the tensor is func(*args); type and state only make
             * it a subclass. */
            if (n != 4 || a[2]->kind != PC_PK_TUPLE)
                return wrong_args(r, callable, n);
            callable = a[0];
            args = a[2];
            continue;
        } else if (pc_pk_is_global(callable, "torch._utils", "_rebuild_qtensor")) {
            return pkl_error(r, PC_ERR_UNSUPPORTED,
                             "the file holds a quantized tensor, which precheck does not support");
        } else if (pc_pk_is_global(callable, "torch._utils", "_rebuild_sparse_tensor") ||
                   pc_pk_is_global(callable, "torch._utils", "_rebuild_sparse_csr_tensor")) {
            return pkl_error(r, PC_ERR_UNSUPPORTED,
                             "the file holds a sparse tensor, which precheck does not support");
        } else if (pc_pk_is_global(callable, "torch._utils", "_rebuild_meta_tensor_no_storage")) {
            return pkl_error(r, PC_ERR_UNSUPPORTED,
                             "the file holds a meta tensor, which has no data");
        } else {
            pc_pk_value fake = {.kind = PC_PK_CALL};
            fake.u.call.callable = (pc_pk_value *)(uintptr_t)callable; /* only read */
            return not_a_tensor(r, &fake, ", not a tensor");
        }
        if (st == PC_OK && grad_override)
            r->out->info.requires_grad = grad;
        return st;
    }
    return pkl_error(r, PC_ERR_UNSUPPORTED, "the tensor is wrapped too many times");
}

/* The shape, strides and offset must reach only elements of the storage. */
static pc_status check_view(pt_reader *r)
{
    pt_parsed *p = r->out;
    int64_t numel;
    pc_status st = pc_tensor_check_shape(p->dtype, p->shape, p->rank, &numel, NULL);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", r->pkl_origin);
    uint64_t end = (uint64_t)p->offset;
    bool overflow = false;
    if (numel > 0) {
        for (int i = 0; i < p->rank; i++) {
            uint64_t step;
            overflow |=
                __builtin_mul_overflow((uint64_t)(p->shape[i] - 1), (uint64_t)p->strides[i], &step);
            overflow |= __builtin_add_overflow(end, step, &end);
        }
        overflow |= __builtin_add_overflow(end, 1, &end);
    }
    if (overflow || end > (uint64_t)p->info.storage_numel) {
        char shape[PC_SHAPE_FORMAT_MAX], strides[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(shape, sizeof shape, p->shape, p->rank);
        pc_shape_format(strides, sizeof strides, p->strides, p->rank);
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: the tensor (size %s, stride %s, offset %" PRId64
                            ") reaches elements beyond its storage of %" PRId64 " elements",
                            r->pkl_origin, shape, strides, p->offset, p->info.storage_numel);
    }
    return PC_OK;
}

/* The storage's member: present, stored, inside the file, and exactly numel x size bytes. */
static pc_status locate_storage(pt_reader *r)
{
    pt_parsed *p = r->out;
    const pc_pk_text *key = &r->storage_key->u.text;
    char record[300];
    int n = snprintf(record, sizeof record, "data/");
    if (key->len > sizeof record - (size_t)n - 1)
        return pkl_error(r, PC_ERR_FORMAT, "the storage key is too long");
    memcpy(record + n, key->data, key->len);
    size_t record_len = (size_t)n + key->len;
    record[record_len] = '\0';
    char archive[160];
    copy_text(archive, sizeof archive, &r->archive);
    const pc_zip_entry *e = find_record(r, record, record_len);
    if (!e) {
        char shown[300];
        pc_pk_text t = {record, record_len};
        copy_text(shown, sizeof shown, &t);
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: the tensor's storage record '%s/%s' is missing: the file is "
                            "incomplete",
                            r->origin, archive, shown);
    }
    uint64_t nbytes;
    size_t elem = pc_dtype_size(p->dtype);
    if (!pc_mul_u64((uint64_t)p->info.storage_numel, elem, &nbytes) || nbytes != e->size) {
        char label[160], need[48];
        pc_zip_entry_label(e, label, sizeof label);
        if (nbytes == e->size || !pc_mul_u64((uint64_t)p->info.storage_numel, elem, &nbytes))
            snprintf(need, sizeof need, "more than 2^64");
        else
            snprintf(need, sizeof need, "%" PRIu64, nbytes);
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: the storage of %" PRId64 " %s elements needs %s bytes but its "
                            "record %s holds %" PRIu64,
                            r->origin, p->info.storage_numel, pc_dtype_name(p->dtype), need, label,
                            e->size);
    }
    pc_status st = pc_zip_entry_data(&r->zip, e, &p->data_offset);
    if (st != PC_OK)
        return st;
    p->data_nbytes = nbytes;
    return PC_OK;
}

static pc_status read_byteorder(pt_reader *r)
{
    const pc_zip_entry *e = find_record(r, "byteorder", 9);
    if (!e)
        return PC_OK; /* absent: little-endian, as torch before 2.1 wrote */
    uint64_t at;
    pc_status st = pc_zip_entry_data(&r->zip, e, &at);
    if (st != PC_OK)
        return st;
    pc_pk_text t = {(const char *)r->zip.data + at, (size_t)e->size};
    if (pc_pk_text_is(&t, "little"))
        return PC_OK;
    if (pc_pk_text_is(&t, "big")) {
        r->out->info.big_endian = true;
        return PC_OK;
    }
    char shown[40];
    copy_text(shown, sizeof shown, &t);
    return pc_error_set(PC_ERR_FORMAT, "%s: the byteorder record holds '%s', not 'little' or 'big'",
                        r->origin, shown);
}

/* Parses the file's bytes into *out without allocating anything that depends on the tensor's
 * size: afterwards, the storage is out->data_nbytes bytes at out->data_offset. */
static pc_status parse(const unsigned char *d, size_t size, const char *origin, pt_parsed *out)
{
    pc_status st = check_magic(origin, d, size);
    if (st != PC_OK)
        return st;
    memset(out, 0, sizeof *out);
    out->info.npu_format = -1;
    pt_reader r = {.origin = origin, .out = out};
    if ((st = pc_zip_open(&r.zip, d, size, origin)) != PC_OK) {
        if (st != PC_ERR_NOMEM && !starts_with(d, size, "PK", 2))
            return pc_error_set(PC_ERR_FORMAT,
                                "%s: not a .pt file: it is not a zip archive (it starts with "
                                "bytes %02x %02x %02x %02x, a torch.save file with 50 4b 03 04)",
                                origin, size > 0 ? d[0] : 0, size > 1 ? d[1] : 0,
                                size > 2 ? d[2] : 0, size > 3 ? d[3] : 0);
        return st;
    }
    /* The archive name is whatever precedes the first '/' of the first member, as torch
     * takes it; it is the saved file's name, so never assume it. */
    const pc_zip_entry *first = &r.zip.entries[0];
    const char *slash = memchr(first->name, '/', first->name_len);
    if (!slash) {
        char label[160];
        pc_zip_entry_label(first, label, sizeof label);
        st = pc_error_set(PC_ERR_FORMAT,
                          "%s: zip member %s has no '<archive>/' prefix: not a torch.save file",
                          origin, label);
        goto done;
    }
    r.archive.data = first->name;
    r.archive.len = (size_t)(slash - first->name);
    char archive[160];
    copy_text(archive, sizeof archive, &r.archive);
    snprintf(r.pkl_origin, sizeof r.pkl_origin, "%s: %s/data.pkl", origin, archive);

    const pc_zip_entry *pkl = find_record(&r, "data.pkl", 8);
    if (!pkl) {
        st = pc_error_set(PC_ERR_FORMAT,
                          "%s: the zip archive has no '%s/data.pkl' record: not a torch.save file",
                          origin, archive);
        goto done;
    }
    uint64_t pkl_at;
    if ((st = pc_zip_entry_data(&r.zip, pkl, &pkl_at)) != PC_OK)
        goto done;
    if ((st = read_byteorder(&r)) != PC_OK)
        goto done;
    pc_pickle *pickle;
    pc_pk_value *top;
    st = pc_pickle_load(&pickle, &top, d + pkl_at, (size_t)pkl->size, r.pkl_origin);
    if (st != PC_OK)
        goto done;
    st = read_tensor(&r, top);
    if (st == PC_OK)
        st = check_view(&r);
    if (st == PC_OK)
        st = locate_storage(&r); /* uses the key, which points into the pickle bytes */
    pc_pickle_free(pickle);
done:
    pc_zip_close(&r.zip);
    return st;
}

static pc_status make_tensor(pc_tensor *out, const pt_parsed *p, pc_storage *storage,
                             const char *origin)
{
    pc_tensor t;
    pc_status st =
        pc_tensor_from_storage(&t, storage, p->dtype, p->shape, p->strides, p->rank, p->offset);
    pc_storage_unref(storage);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", origin);
    *out = t;
    return PC_OK;
}

/* A copy of the storage's bytes (swapped to little-endian when needed). */
static pc_status copy_storage(const unsigned char *d, const pt_parsed *p, pc_storage **out)
{
    pc_storage *s;
    pc_status st = pc_storage_alloc(&s, (size_t)p->data_nbytes);
    if (st != PC_OK)
        return st;
    if (p->data_nbytes)
        memcpy(pc_storage_data(s), d + p->data_offset, (size_t)p->data_nbytes);
    if (p->info.big_endian)
        pc_swap_elements(pc_storage_data(s), (size_t)p->info.storage_numel, p->dtype);
    *out = s;
    return PC_OK;
}

pc_status pc_pt_read_buffer(const void *data, size_t size, const char *origin, pc_tensor *out,
                            pc_pt_info *info)
{
    if (!origin)
        origin = "<memory>";
    pt_parsed p;
    pc_status st = parse(data, size, origin, &p);
    if (st != PC_OK)
        return st;
    pc_storage *s;
    if ((st = copy_storage(data, &p, &s)) != PC_OK)
        return pc_error_prefix(st, "%s", origin);
    if ((st = make_tensor(out, &p, s, origin)) != PC_OK)
        return st;
    if (info)
        *info = p.info;
    return PC_OK;
}

pc_status pc_pt_read_file(const char *path, pc_tensor *out, pc_pt_info *info)
{
    pc_file_map map;
    pc_status st = pc_file_map_open(&map, path, "a .pt file");
    if (st != PC_OK)
        return st;
    pt_parsed p;
    st = parse(map.base, map.size, path, &p);
    if (st != PC_OK) {
        pc_file_map_close(&map);
        return st;
    }
    pc_storage *s;
    if (pc_file_map_can_wrap(p.data_offset, (size_t)p.data_nbytes, p.dtype)) {
        /* In place: the storage owns the mapping from here on. */
        st = pc_file_map_wrap(&map, p.data_offset, (size_t)p.data_nbytes, p.info.big_endian,
                              (size_t)p.info.storage_numel, p.dtype, path, &s);
        if (st != PC_OK)
            return st;
        p.info.mapped = true;
    } else {
        st = copy_storage(map.base, &p, &s);
        pc_file_map_close(&map);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", path);
    }
    if ((st = make_tensor(out, &p, s, path)) != PC_OK)
        return st;
    if (info)
        *info = p.info;
    return PC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* The pickle torch writes for a contiguous tensor with offset 0 on its own storage: the same
 * opcodes, in the same order, with the same memo numbering as Python's pickler (protocol 2). */
typedef struct pkl_out {
    unsigned char buf[1024];
    size_t len;
    unsigned memo;
} pkl_out;

static void emit(pkl_out *o, const void *p, size_t n)
{
    memcpy(o->buf + o->len, p, n); /* callers stay far below the buffer's size */
    o->len += n;
}

static void emit_byte(pkl_out *o, unsigned char b)
{
    emit(o, &b, 1);
}

static void emit_put(pkl_out *o)
{
    emit_byte(o, 'q'); /* BINPUT; our pickles have fewer than 256 memo entries */
    emit_byte(o, (unsigned char)o->memo++);
}

static void emit_int(pkl_out *o, int64_t v)
{
    unsigned char b[9];
    if (v >= 0 && v <= 0xFF) {
        emit_byte(o, 'K');
        emit_byte(o, (unsigned char)v);
    } else if (v >= 0 && v <= 0xFFFF) {
        emit_byte(o, 'M');
        pc_put_le16(b, (uint16_t)v);
        emit(o, b, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        emit_byte(o, 'J');
        pc_put_le32(b, (uint32_t)(int32_t)v);
        emit(o, b, 4);
    } else {
        /* LONG1: the shortest little-endian two's complement that keeps the sign. */
        pc_put_le64(b, (uint64_t)v);
        size_t n = 8;
        while (n > 1 && ((b[n - 1] == 0x00 && !(b[n - 2] & 0x80)) ||
                         (b[n - 1] == 0xFF && (b[n - 2] & 0x80))))
            n--;
        emit_byte(o, 0x8a);
        emit_byte(o, (unsigned char)n);
        emit(o, b, n);
    }
}

static void emit_unicode(pkl_out *o, const char *s)
{
    unsigned char b[4];
    size_t n = strlen(s);
    emit_byte(o, 'X');
    pc_put_le32(b, (uint32_t)n);
    emit(o, b, 4);
    emit(o, s, n);
    emit_put(o);
}

static void emit_global(pkl_out *o, const char *module, const char *name)
{
    emit_byte(o, 'c');
    emit(o, module, strlen(module));
    emit_byte(o, '\n');
    emit(o, name, strlen(name));
    emit_byte(o, '\n');
    emit_put(o);
}

static void emit_tuple(pkl_out *o, const int64_t *v, int n)
{
    if (n == 0) {
        emit_byte(o, ')'); /* EMPTY_TUPLE: not memoized */
        return;
    }
    if (n > 3)
        emit_byte(o, '(');
    for (int i = 0; i < n; i++)
        emit_int(o, v[i]);
    emit_byte(o, n > 3 ? 't' : (unsigned char)(0x84 + n));
    emit_put(o);
}

static void build_pickle(pkl_out *o, const pc_tensor *t)
{
    memset(o, 0, sizeof *o);
    emit(o, "\x80\x02", 2);
    emit_global(o, "torch._utils", "_rebuild_tensor_v2");
    emit_byte(o, '(');
    emit_byte(o, '(');
    emit_unicode(o, "storage");
    emit_global(o, "torch", pc_dtype_traits_of(t->dtype)->storage_name);
    emit_unicode(o, "0");
    emit_unicode(o, "cpu");
    emit_int(o, pc_tensor_numel(t));
    emit_byte(o, 't');
    emit_put(o);
    emit_byte(o, 'Q');
    emit_int(o, 0);
    int64_t strides[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(t->shape, t->rank, strides);
    emit_tuple(o, t->shape, t->rank);
    emit_tuple(o, strides, t->rank);
    emit_byte(o, 0x89); /* requires_grad False: written tensors are detached */
    emit_global(o, "collections", "OrderedDict");
    emit_byte(o, ')');
    emit_byte(o, 'R');
    emit_put(o);
    emit_byte(o, 't');
    emit_put(o);
    emit_byte(o, 'R');
    emit_put(o);
    emit_byte(o, '.');
}

static pc_status write_archive(const pc_tensor *t, const char *archive, pc_byte_sink *sink,
                               uint64_t zip64_limit)
{
    if (pc_tensor_is_null(t))
        return pc_error_set(PC_ERR_INVALID, "%s: cannot save the null tensor", sink->origin);
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&c, t);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", sink->origin);
    pkl_out pkl;
    build_pickle(&pkl, &c);
    pc_zip_writer w;
    pc_zip_writer_init(&w, sink);
    w.zip64_limit = zip64_limit;
    char name[4096];
    const char *records[] = {"data.pkl", "byteorder", "data/0", "version"};
    const void *contents[] = {pkl.buf, "little", pc_tensor_data(&c), "3\n"};
    size_t sizes[] = {pkl.len, 6, pc_tensor_nbytes(&c), 2};
    for (size_t i = 0; i < 4 && st == PC_OK; i++) {
        int n = snprintf(name, sizeof name, "%s/%s", archive, records[i]);
        if (n < 0 || (size_t)n >= sizeof name)
            st = pc_error_set(PC_ERR_INVALID, "%s: the archive name is too long", sink->origin);
        else
            st = pc_zip_writer_add(&w, name, contents[i], sizes[i]);
    }
    if (st == PC_OK)
        st = pc_zip_writer_finish(&w);
    pc_zip_writer_free(&w);
    pc_tensor_free(&c);
    return st;
}

pc_status pc_pt_write_buffer_limit(const pc_tensor *t, const char *archive, uint64_t zip64_limit,
                                   void **data, size_t *size)
{
    pc_byte_sink sink = {.fd = -1, .origin = "<memory>"};
    pc_status st = write_archive(t, archive ? archive : "archive", &sink, zip64_limit);
    if (st != PC_OK) {
        pc_strbuf_reset(&sink.mem);
        return st;
    }
    *data = pc_strbuf_finish(&sink.mem, size);
    return *data ? PC_OK : pc_error_set(PC_ERR_NOMEM, "writing a .pt to memory: out of memory");
}

pc_status pc_pt_write_buffer(const pc_tensor *t, const char *archive, void **data, size_t *size)
{
    return pc_pt_write_buffer_limit(t, archive, 0xFFFFFFFF, data, size);
}

pc_status pc_pt_write_file(const char *path, const pc_tensor *t, unsigned flags)
{
    /* torch names the archive after the file: its base name without the last extension. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char archive[1024];
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n == 0 || n >= sizeof archive) {
        snprintf(archive, sizeof archive, "archive");
    } else {
        memcpy(archive, base, n);
        archive[n] = '\0';
    }
    /* file_out.h: a fresh temporary beside path (never through a link), then into place */
    pc_file_out out;
    pc_status st = pc_file_out_open(&out, path, flags);
    if (st != PC_OK)
        return st;
    pc_byte_sink sink = {.fd = fileno(out.f), .origin = path};
    st = write_archive(t, archive, &sink, 0xFFFFFFFF);
    if (st == PC_OK)
        st = pc_file_out_commit(&out);
    pc_file_out_free(&out);
    return st;
}
