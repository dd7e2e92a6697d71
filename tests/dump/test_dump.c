/* dump.json -> api records: every record of the real msprobe dumps (cross-checked against a
 * plain JSON walk of the same file), values spot-checked against the files, the spec's sample
 * snippets, entry naming and pairing rules, and the top-level rules of spec run_ut.md §2. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/dump_synth.h" /* the benchmark's generator, smoke-tested here */
#include "dump_samples.h"
#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps/"

static pc_dump *open_ok(const char *path)
{
    pc_dump *d = NULL;
    if (pc_dump_open(&d, path) != PC_OK)
        fail_msg("%s: %s", path, pc_error_message());
    return d;
}

static pc_dump *parse_ok(const char *text)
{
    pc_dump *d = NULL;
    if (pc_dump_parse(&d, text, strlen(text), "dump.json") != PC_OK)
        fail_msg("parse failed: %s", pc_error_message());
    return d;
}

static void expect_parse_error(const char *text, pc_status status, const char *message)
{
    pc_dump *d = NULL;
    pc_status st = pc_dump_parse(&d, text, strlen(text), "dump.json");
    if (st != status)
        fail_msg("status %d, expected %d: %s", st, status, pc_error_message());
    assert_null(d);
    assert_string_equal(pc_error_message(), message);
}

/* ---- an independent walk: the JSON document against the records ---- */

static void check_value(const pc_json_doc *doc, pc_json_ref v, const pc_dump_value *got)
{
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_INVALID:
        assert_int_equal(got->kind, PC_DUMP_VALUE_ABSENT);
        break;
    case PC_JSON_NULL:
        assert_int_equal(got->kind, PC_DUMP_VALUE_NULL);
        break;
    case PC_JSON_BOOL: {
        bool b;
        pc_json_get_bool(doc, v, &b);
        assert_int_equal(got->kind, PC_DUMP_VALUE_BOOL);
        assert_int_equal(got->u.b, b);
        break;
    }
    case PC_JSON_INT: {
        int64_t i;
        pc_json_get_int64(doc, v, &i);
        assert_int_equal(got->kind, PC_DUMP_VALUE_INT);
        assert_true(got->u.i == i);
        break;
    }
    case PC_JSON_FLOAT: {
        double d = pc_json_number(doc, v);
        assert_int_equal(got->kind, PC_DUMP_VALUE_FLOAT);
        assert_true(pc_test_same_f64(got->u.f, d) || (isnan(d) && isnan(got->u.f)));
        break;
    }
    case PC_JSON_STRING:
        assert_int_equal(got->kind, PC_DUMP_VALUE_STR);
        assert_string_equal(got->u.s, pc_json_string(doc, v, NULL));
        break;
    case PC_JSON_ARRAY: {
        assert_int_equal(got->kind, PC_DUMP_VALUE_LIST);
        assert_int_equal(got->count, pc_json_count(doc, v));
        size_t i = 0;
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e))
            check_value(doc, e, &got->u.items[i++]);
        break;
    }
    case PC_JSON_OBJECT:
        assert_int_equal(got->kind, PC_DUMP_VALUE_OBJECT);
        for (uint32_t i = 0; i < got->count; i++)
            check_value(doc, pc_json_object_get(doc, v, got->u.members[i].key),
                        &got->u.members[i].value);
        break;
    }
}

static size_t tensors_seen;

static void check_tensor(const pc_json_doc *doc, pc_json_ref v, const pc_dump_tensor *t)
{
    tensors_seen++;
    const char *dtype = pc_json_string(doc, pc_json_object_get(doc, v, "dtype"), NULL);
    assert_non_null(dtype);
    assert_string_equal(t->dtype_name, dtype);
    assert_int_equal(t->dtype, pc_dtype_from_torch_name(dtype));
    assert_int_not_equal(t->dtype, PC_DTYPE_INVALID); /* the real dumps use known dtypes */
    pc_json_ref shape = pc_json_object_get(doc, v, "shape");
    assert_true(t->has_shape);
    assert_int_equal(t->rank, pc_json_count(doc, shape));
    for (int64_t i = 0; i < t->rank; i++) {
        int64_t dim;
        assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, shape, (size_t)i), &dim),
                         PC_OK);
        assert_true(t->shape[i] == dim);
    }
    check_value(doc, pc_json_object_get(doc, v, "Max"), &t->max);
    check_value(doc, pc_json_object_get(doc, v, "Min"), &t->min);
    check_value(doc, pc_json_object_get(doc, v, "Mean"), &t->mean);
    check_value(doc, pc_json_object_get(doc, v, "Norm"), &t->norm);
    bool rg;
    assert_int_equal(pc_json_get_bool(doc, pc_json_object_get(doc, v, "requires_grad"), &rg),
                     PC_OK);
    assert_int_equal(t->requires_grad, rg);
    const char *dn = pc_json_string(doc, pc_json_object_get(doc, v, "data_name"), NULL);
    if (dn)
        assert_string_equal(t->data_name, dn);
    else
        assert_null(t->data_name);
    assert_null(t->datapath);
    if (dn)
        assert_string_equal(pc_dump_tensor_file(t), dn);
    else
        assert_null(pc_dump_tensor_file(t));
}

static void check_arg(const pc_json_doc *doc, pc_json_ref v, const pc_dump_arg *a)
{
    assert_null(a->error); /* nothing in a real dump is unusable */
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        assert_int_equal(a->kind, PC_DUMP_ARG_NULL);
        return;
    case PC_JSON_ARRAY: {
        assert_int_equal(a->kind, PC_DUMP_ARG_LIST);
        assert_int_equal(a->u.list.count, pc_json_count(doc, v));
        size_t i = 0;
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e))
            check_arg(doc, e, &a->u.list.items[i++]);
        return;
    }
    case PC_JSON_OBJECT:
        break;
    default:
        fail_msg("a bare value in a real dump");
    }
    const char *type = pc_json_string(doc, pc_json_object_get(doc, v, "type"), NULL);
    assert_non_null(type);
    assert_string_equal(a->type, type);
    pc_json_ref val = pc_json_object_get(doc, v, "value");
    if (strcmp(type, "torch.Tensor") == 0) {
        assert_int_equal(a->kind, PC_DUMP_ARG_TENSOR);
        check_tensor(doc, v, a->u.tensor);
        return;
    }
    check_value(doc, val, &a->value);
    static const struct {
        const char *type;
        pc_dump_arg_kind kind;
    } kinds[] = {{"int", PC_DUMP_ARG_INT},
                 {"float", PC_DUMP_ARG_FLOAT},
                 {"bool", PC_DUMP_ARG_BOOL},
                 {"torch.device", PC_DUMP_ARG_DEVICE},
                 {"torch.memory_format", PC_DUMP_ARG_OTHER}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(type, kinds[i].type) == 0) {
            assert_int_equal(a->kind, kinds[i].kind);
            return;
        }
    fail_msg("type %s not expected in the real dumps", type);
}

static void check_entry(const pc_json_doc *doc, pc_json_ref body, const pc_dump_entry *e,
                        bool forward)
{
    assert_null(e->error);
    if (forward) {
        check_arg(doc, pc_json_object_get(doc, body, "input_args"), &e->input_args);
        pc_json_ref kw = pc_json_object_get(doc, body, "input_kwargs");
        assert_true(e->has_kwargs);
        assert_int_equal(e->kwarg_count, pc_json_count(doc, kw));
        size_t i = 0;
        for (pc_json_ref k = pc_json_first(doc, kw); k != PC_JSON_NONE;
             k = pc_json_next(doc, k), i++) {
            assert_string_equal(e->kwargs[i].key, pc_json_string(doc, k, NULL));
            check_arg(doc, pc_json_member_value(doc, k), &e->kwargs[i].value);
        }
        check_value(doc, pc_json_object_get(doc, body, "is_recompute"), &e->is_recompute);
        assert_null(e->filter_error);
    } else {
        check_arg(doc, pc_json_object_get(doc, body, "input"), &e->input);
        assert_int_equal(e->input_args.kind, PC_DUMP_ARG_ABSENT);
    }
    check_arg(doc, pc_json_object_get(doc, body, "output"), &e->output);
}

typedef struct fixture {
    const char *name;
    size_t forward, backward;
    bool real_data;
    const char *task;
} fixture;

/* Counts from tests/fixtures/msprobe/README.md. */
static const fixture fixtures[] = {
    {"gpt_stats", 43, 40, false, "statistics"},  {"gpt_tensor", 43, 40, true, "tensor"},
    {"gpt_bf16_tensor", 43, 40, true, "tensor"}, {"cnn_tensor", 14, 11, true, "tensor"},
    {"ew_fp16_tensor", 12, 11, true, "tensor"},
};

static void test_fixtures_every_record(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, DUMPS "%s/step0/rank/dump.json", fixtures[f].name);
        pc_dump *d = open_ok(path);
        assert_int_equal(d->api_count, fixtures[f].forward);
        assert_int_equal(d->backward_count, fixtures[f].backward);
        assert_int_equal(d->module_count, 0);
        assert_int_equal(d->has_real_data, fixtures[f].real_data);
        assert_string_equal(d->task, fixtures[f].task);
        assert_string_equal(d->level, "L1");
        assert_string_equal(d->framework, "pytorch");
        assert_false(d->data_empty);
        assert_string_equal(d->path, path);

        pc_json_doc *doc = NULL;
        assert_int_equal(pc_json_parse_file(&doc, path), PC_OK);
        pc_json_ref data = pc_json_object_get(doc, pc_json_root(doc), "data");
        size_t nf = 0, nb = 0, paired = 0;
        tensors_seen = 0;
        for (pc_json_ref k = pc_json_first(doc, data); k != PC_JSON_NONE;
             k = pc_json_next(doc, k)) {
            const char *key = pc_json_string(doc, k, NULL);
            char stripped[256];
            const char *dot = strrchr(key, '.');
            snprintf(stripped, sizeof stripped, "%.*s", (int)(dot - key), key);
            pc_json_ref body = pc_json_member_value(doc, k);
            if (strcmp(dot, ".forward") == 0) {
                const pc_dump_api *api = &d->apis[nf++];
                assert_ptr_equal(pc_dump_find(d, stripped), api); /* dict order */
                assert_string_equal(api->full_name, stripped);
                assert_string_equal(api->forward.key, key);
                size_t line, col;
                pc_json_location(doc, k, &line, &col);
                assert_int_equal(api->forward.line, line);
                check_entry(doc, body, &api->forward, true);
                assert_false(api->unsafe_name);
                assert_non_null(api->api_name);
                assert_string_equal(api->api_type, api->prefix);
                if (api->backward)
                    paired++;
            } else {
                assert_string_equal(dot, ".backward");
                const pc_dump_backward *bw = &d->backwards[nb++];
                assert_string_equal(bw->full_name, stripped);
                check_entry(doc, body, &bw->entry, false);
                const pc_dump_api *api = pc_dump_find(d, stripped);
                assert_non_null(api);
                assert_ptr_equal(api->backward, &bw->entry);
            }
        }
        assert_int_equal(nf, fixtures[f].forward);
        assert_int_equal(nb, fixtures[f].backward);
        assert_int_equal(paired, fixtures[f].backward);
        assert_true(tensors_seen > nf);
        pc_json_free(doc);
        pc_dump_free(d);
    }
}

/* Literal values read off the files by eye. */
static void test_fixtures_spot_checks(void **state)
{
    (void)state;
    pc_dump *d = open_ok(DUMPS "gpt_stats/step0/rank/dump.json");
    assert_null(d->dump_data_dir);
    const pc_dump_api *a = &d->apis[0];
    assert_string_equal(a->full_name, "Torch.arange.0");
    assert_string_equal(a->prefix, "Torch");
    assert_string_equal(a->api_name, "arange");
    assert_string_equal(a->call_index, "0");
    assert_null(a->backward);
    assert_int_equal(a->forward.line, 7);
    assert_int_equal(a->forward.input_args.u.list.count, 1);
    const pc_dump_arg *x = &a->forward.input_args.u.list.items[0];
    assert_int_equal(x->kind, PC_DUMP_ARG_INT);
    assert_int_equal(x->value.u.i, 8);
    assert_int_equal(a->forward.kwarg_count, 1);
    assert_string_equal(a->forward.kwargs[0].key, "device");
    assert_int_equal(a->forward.kwargs[0].value.kind, PC_DUMP_ARG_DEVICE);
    assert_string_equal(a->forward.kwargs[0].value.value.u.s, "cpu:None");
    assert_int_equal(a->forward.is_recompute.kind, PC_DUMP_VALUE_BOOL);
    const pc_dump_tensor *t = a->forward.output.u.list.items[0].u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_I64);
    assert_true(t->rank == 1 && t->shape[0] == 8);
    pc_assert_same_f64(t->max.u.f, 7.0);
    pc_assert_same_f64(t->min.u.f, 0.0);
    pc_assert_same_f64(t->mean.u.f, 3.5);
    pc_assert_same_f64(t->norm.u.f, 11.832159996032715);
    assert_false(t->requires_grad);

    a = pc_dump_find(d, "Functional.embedding.0");
    assert_non_null(a);
    assert_non_null(a->backward);
    const pc_dump_arg *args = a->forward.input_args.u.list.items;
    assert_int_equal(a->forward.input_args.u.list.count, 7);
    t = args[1].u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_F32);
    assert_true(t->rank == 2 && t->shape[0] == 64 && t->shape[1] == 32);
    pc_assert_same_f64(t->max.u.f, 3.6555705070495605);
    pc_assert_same_f64(t->min.u.f, -4.068782329559326);
    pc_assert_same_f64(t->mean.u.f, -0.043692365288734436);
    pc_assert_same_f64(t->norm.u.f, 46.73372268676758);
    assert_true(t->requires_grad);
    assert_int_equal(args[2].kind, PC_DUMP_ARG_NULL);
    assert_int_equal(args[3].kind, PC_DUMP_ARG_NULL);
    assert_int_equal(args[4].kind, PC_DUMP_ARG_FLOAT);
    pc_assert_same_f64(args[4].value.u.f, 2.0);
    assert_int_equal(args[5].kind, PC_DUMP_ARG_BOOL);
    assert_false(args[5].value.u.b);
    a = pc_dump_find(d, "Torch.ones_like.0");
    assert_non_null(a);
    const pc_dump_arg *mf = &a->forward.kwargs[a->forward.kwarg_count - 1].value;
    assert_int_equal(mf->kind, PC_DUMP_ARG_OTHER);
    assert_string_equal(mf->type, "torch.memory_format");
    assert_int_equal(mf->value.kind, PC_DUMP_VALUE_ABSENT);
    pc_dump_free(d);

    d = open_ok(DUMPS "gpt_tensor/step0/rank/dump.json");
    assert_non_null(d->dump_data_dir);
    a = pc_dump_find(d, "Functional.embedding.0");
    assert_string_equal(a->forward.input_args.u.list.items[1].u.tensor->data_name,
                        "Functional.embedding.0.forward.input.1.pt");
    a = pc_dump_find(d, "Functional.cross_entropy.0");
    const pc_dump_tensor *g = a->backward->input.u.list.items[0].u.tensor;
    assert_int_equal(g->rank, 0); /* the loss gradient is 0-dim */
    pc_assert_same_f64(g->max.u.f, 1.0);
    assert_string_equal(g->data_name, "Functional.cross_entropy.0.backward.input.0.pt");
    t = a->backward->output.u.list.items[0].u.tensor;
    assert_true(t->rank == 2 && t->shape[0] == 16 && t->shape[1] == 64);
    pc_assert_same_f64(t->min.u.f, -0.0625);
    pc_dump_free(d);

    d = open_ok(DUMPS "cnn_tensor/step0/rank/dump.json");
    a = &d->apis[0];
    assert_string_equal(a->full_name, "Functional.conv2d.0");
    args = a->forward.input_args.u.list.items;
    t = args[0].u.tensor;
    assert_true(t->rank == 4 && t->shape[0] == 4 && t->shape[1] == 3 && t->shape[3] == 16);
    pc_assert_same_f64(t->max.u.f, 4.076706409454346);
    assert_int_equal(args[3].kind, PC_DUMP_ARG_LIST); /* stride (1, 1) */
    assert_int_equal(args[3].u.list.count, 2);
    assert_int_equal(args[3].u.list.items[1].kind, PC_DUMP_ARG_INT);
    assert_int_equal(args[3].u.list.items[1].value.u.i, 1);
    assert_string_equal(d->apis[1].api_name, "add_");
    assert_null(d->apis[1].backward);
    pc_dump_free(d);
}

static const pc_dump_arg *arg_at(const pc_dump_arg *list, size_t i)
{
    assert_int_equal(list->kind, PC_DUMP_ARG_LIST);
    assert_true(i < list->u.list.count);
    return &list->u.list.items[i];
}

static const pc_dump_arg *kwarg(const pc_dump_api *a, const char *key)
{
    for (size_t i = 0; i < a->forward.kwarg_count; i++)
        if (strcmp(a->forward.kwargs[i].key, key) == 0)
            return &a->forward.kwargs[i].value;
    fail_msg("no kwarg %s", key);
    return NULL;
}

static void test_spec_sample1(void **state)
{
    (void)state;
    pc_dump *d = parse_ok(sample1);
    assert_int_equal(d->api_count, 5);
    assert_int_equal(d->backward_count, 1);
    assert_false(d->has_real_data);
    const char *names[] = {"Functional.embedding.0", "NPU.npu_rms_norm.0", "Tensor.__mul__.0",
                           "Torch.cat.0", "Functional.dropout.0"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(d->apis[i].full_name, names[i]);
    const pc_dump_api *a = &d->apis[0];
    const pc_dump_tensor *t = arg_at(&a->forward.input_args, 0)->u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_I64);
    pc_assert_same_f64(t->max.u.f, 31999.0);
    t = arg_at(&a->forward.input_args, 1)->u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_BF16);
    assert_true(t->shape[0] == 32000 && t->shape[1] == 4096);
    pc_assert_same_f64(t->mean.u.f, 1.2874603271484375e-05);
    assert_int_equal(a->forward.kwarg_count, 0);
    assert_true(a->forward.has_kwargs);
    a = &d->apis[1];
    assert_string_equal(a->prefix, "NPU");
    assert_string_equal(a->api_name, "npu_rms_norm");
    pc_assert_same_f64(kwarg(a, "epsilon")->value.u.f, 1e-06);
    assert_int_equal(a->forward.output.u.list.count, 2);
    a = &d->apis[2];
    assert_non_null(a->backward);
    assert_ptr_equal(a->backward, &d->backwards[0].entry);
    pc_assert_same_f64(arg_at(&a->forward.input_args, 1)->value.u.f, 0.08838834764831843);
    pc_assert_same_f64(arg_at(&a->backward->input, 0)->u.tensor->max.u.f, 0.00019073486328125);
    a = &d->apis[3];
    const pc_dump_arg *list = arg_at(&a->forward.input_args, 0);
    assert_int_equal(list->kind, PC_DUMP_ARG_LIST);
    assert_int_equal(list->u.list.count, 2);
    assert_true(arg_at(list, 1)->u.tensor->shape[3] == 64);
    assert_int_equal(kwarg(a, "dim")->value.u.i, -1);
    assert_int_equal(d->apis[3].forward.is_recompute.kind, PC_DUMP_VALUE_ABSENT);
    pc_dump_free(d);
}

static void test_spec_sample2(void **state)
{
    (void)state;
    pc_dump *d = parse_ok(sample2);
    assert_true(d->has_real_data);
    assert_string_equal(d->dump_data_dir, "/home/user/dump/step0/rank3/dump_tensor_data");
    assert_int_equal(d->api_count, 5);
    /* Tensor.__setitem__: infinities, md5, [ellipsis, slice], a float -inf, output [null] */
    const pc_dump_api *a = pc_dump_find(d, "Tensor.__setitem__.0");
    const pc_dump_tensor *t = arg_at(&a->forward.input_args, 0)->u.tensor;
    pc_assert_same_f64(t->min.u.f, -HUGE_VAL);
    pc_assert_same_f64(t->mean.u.f, -HUGE_VAL);
    pc_assert_same_f64(t->norm.u.f, HUGE_VAL);
    assert_string_equal(t->md5, "5e0a6b9c");
    assert_string_equal(pc_dump_tensor_file(t), "Tensor.__setitem__.0.forward.input.0.pt");
    const pc_dump_arg *idx = arg_at(&a->forward.input_args, 1);
    assert_int_equal(arg_at(idx, 0)->kind, PC_DUMP_ARG_ELLIPSIS);
    assert_string_equal(arg_at(idx, 0)->value.u.s, "...");
    const pc_dump_arg *sl = arg_at(idx, 1);
    assert_int_equal(sl->kind, PC_DUMP_ARG_SLICE);
    assert_null(sl->error);
    assert_false(sl->u.slice.has_start);
    assert_true(sl->u.slice.has_stop && sl->u.slice.stop == 64);
    assert_false(sl->u.slice.has_step);
    assert_int_equal(arg_at(&a->forward.input_args, 2)->kind, PC_DUMP_ARG_FLOAT);
    pc_assert_same_f64(arg_at(&a->forward.input_args, 2)->value.u.f, -HUGE_VAL);
    assert_int_equal(arg_at(&a->forward.output, 0)->kind, PC_DUMP_ARG_NULL);
    /* Torch.arange: dtype and device kwargs */
    a = pc_dump_find(d, "Torch.arange.0");
    assert_int_equal(kwarg(a, "dtype")->kind, PC_DUMP_ARG_DTYPE);
    assert_int_equal(kwarg(a, "dtype")->u.dtype, PC_DTYPE_F32);
    assert_string_equal(kwarg(a, "device")->value.u.s, "npu:3");
    /* Tensor.expand: bool statistics, torch.Size */
    a = pc_dump_find(d, "Tensor.expand.0");
    t = arg_at(&a->forward.input_args, 0)->u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_BOOL);
    assert_int_equal(t->max.kind, PC_DUMP_VALUE_BOOL);
    assert_true(t->max.u.b);
    assert_false(t->min.u.b);
    assert_int_equal(t->mean.kind, PC_DUMP_VALUE_NULL);
    assert_true(pc_dump_value_is_number(&t->max));
    assert_false(pc_dump_value_is_number(&t->mean));
    pc_assert_same_f64(pc_dump_value_as_double(&t->max), 1.0);
    const pc_dump_arg *size = arg_at(&a->forward.input_args, 1);
    assert_int_equal(size->kind, PC_DUMP_ARG_SIZE);
    assert_int_equal(size->u.size.rank, 4);
    assert_true(size->u.size.dims[0] == 2 && size->u.size.dims[3] == 2048);
    /* Torch.sum: an empty tensor (null statistics) and a 0-dim output */
    a = pc_dump_find(d, "Torch.sum.0");
    t = arg_at(&a->forward.input_args, 0)->u.tensor;
    assert_true(t->rank == 2 && t->shape[0] == 0);
    assert_int_equal(t->max.kind, PC_DUMP_VALUE_NULL);
    assert_int_equal(t->dtype, PC_DTYPE_F16);
    t = arg_at(&a->forward.output, 0)->u.tensor;
    assert_true(t->has_shape && t->rank == 0);
    /* NPU flash attention: kwargs in order, ints beyond 2^53 exact, its backward */
    a = pc_dump_find(d, "NPU.npu_fusion_attention.0");
    const char *order[] = {
        "pse",          "padding_mask", "atten_mask",    "scale",           "pre_tockens",
        "next_tockens", "keep_prob",    "inner_precise", "actual_seq_qlen", "actual_seq_kvlen",
        "sparse_mode"};
    assert_int_equal(a->forward.kwarg_count, 11);
    for (size_t i = 0; i < 11; i++)
        assert_string_equal(a->forward.kwargs[i].key, order[i]);
    assert_int_equal(a->forward.kwargs[0].value.kind, PC_DUMP_ARG_NULL);
    assert_int_equal(kwarg(a, "atten_mask")->u.tensor->dtype, PC_DTYPE_BOOL);
    assert_int_equal(kwarg(a, "sparse_mode")->value.u.i, 3);
    assert_string_equal(arg_at(&a->forward.input_args, 4)->value.u.s, "SBH");
    assert_true(arg_at(&a->forward.output, 4)->value.u.i == 187651464146080LL);
    assert_true(arg_at(&a->forward.output, 5)->value.u.i == 281472727719936LL);
    assert_non_null(a->backward);
    assert_int_equal(a->backward->input.u.list.count, 4);
    assert_int_equal(arg_at(&a->backward->input, 1)->kind, PC_DUMP_ARG_NULL);
    /* {"...": "dk"} is an object without "type": kept as OBJECT, its field a bare value */
    const pc_dump_arg *dk = arg_at(&a->backward->output, 1);
    assert_int_equal(dk->kind, PC_DUMP_ARG_OBJECT);
    assert_int_equal(dk->u.object.count, 1);
    assert_string_equal(dk->u.object.fields[0].key, "...");
    assert_int_equal(dk->u.object.fields[0].value.kind, PC_DUMP_ARG_RAW);
    assert_non_null(dk->u.object.fields[0].value.error);
    char path[128];
    pc_dump_arg_path(a, &dk->u.object.fields[0].value, path, sizeof path);
    assert_string_equal(path, "backward output[1]....");
    pc_dump_free(d);
}

static void test_spec_sample3(void **state)
{
    (void)state;
    size_t n = strlen(sample3) + 128;
    char *text = malloc(n);
    snprintf(text, n, "{\"task\": \"statistics\", \"dump_data_dir\": null, \"data\": {\n%s}}",
             sample3);
    pc_dump *d = parse_ok(text);
    free(text);
    assert_int_equal(d->api_count, 1);
    const pc_dump_api *a = &d->apis[0];
    assert_string_equal(a->full_name, "Functional.conv2d.0");
    assert_int_equal(a->forward.input_args.u.list.count, 7);
    const pc_dump_arg *pad = arg_at(&a->forward.input_args, 4);
    assert_int_equal(pad->u.list.count, 2);
    assert_int_equal(arg_at(pad, 0)->value.u.i, 3);
    assert_int_equal(arg_at(&a->forward.input_args, 6)->value.u.i, 1);
    assert_non_null(a->backward);
    assert_int_equal(arg_at(&a->backward->output, 0)->kind, PC_DUMP_ARG_NULL);
    const pc_dump_tensor *gw = arg_at(&a->backward->output, 1)->u.tensor;
    assert_true(gw->shape[0] == 64 && gw->shape[3] == 7);
    pc_assert_same_f64(gw->norm.u.f, 0.1721);
    char path[128];
    pc_dump_arg_path(a, arg_at(&a->backward->output, 1), path, sizeof path);
    assert_string_equal(path, "backward output[1]");
    pc_dump_arg_path(a, arg_at(pad, 1), path, sizeof path);
    assert_string_equal(path, "input_args[4][1]");
    pc_dump_free(d);
}

/* ---- names ---- */

#define WRAP(entries)                                                                              \
    "{\"task\": \"statistics\", \"level\": \"L1\", \"dump_data_dir\": null, \"data\": {" entries   \
    "}}"

static void test_entry_names(void **state)
{
    (void)state;
    pc_dump *d =
        parse_ok(WRAP("\"Functional.conv2d.0.forward\": {\"input_args\": [], \"input_kwargs\": {}},"
                      "\"Module.layer1.Conv2d.forward.0\": {\"input_args\": []},"
                      "\"Module.layer1.Conv2d.backward.0\": {},"
                      "\"Module.layer1.Conv2d.parameters_grad.0\": {},"
                      "\"Tensor.__add__.3.forward\": {\"input_args\": []},"
                      "\"Tensor.__add__.3.backward\": {\"input\": [], \"output\": []},"
                      "\"Torch.linalg.norm.0.forward\": {\"input_args\": []},"
                      "\"Aten.mul.Tensor.5.forward\": {\"input_args\": []},"
                      "\"MindSpeed.gmm.npu_gmm.0.forward\": {\"input_args\": []},"
                      "\"Distributed.all_reduce.0.forward\": {\"input_args\": []},"
                      "\"Odd.0.forward\": {},"
                      "\"A.b.c.d.0.forward\": {},"
                      "\"forward\": {},"
                      "\"-cmd.0.forward\": {},"
                      "\"x;@y.0.forward\": {},"
                      "\"\\uff0bfull.0.forward\": {},"
                      "\"Orphan.x.1.backward\": {}"));
    assert_int_equal(d->module_count, 3);
    assert_int_equal(d->api_count, 12);
    assert_int_equal(d->backward_count, 2);
    static const struct {
        const char *full, *prefix, *type, *name, *index;
        bool unsafe;
    } want[] = {
        {"Functional.conv2d.0", "Functional", "Functional", "conv2d", "0", false},
        {"Tensor.__add__.3", "Tensor", "Tensor", "__add__", "3", false},
        {"Torch.linalg.norm.0", "Torch", "Torch", "linalg.norm", "0", false},
        {"Aten.mul.Tensor.5", "Aten", "Aten", "mul.Tensor", "5", false},
        {"MindSpeed.gmm.npu_gmm.0", "MindSpeed", "MindSpeed", "gmm.npu_gmm", "0", false},
        {"Distributed.all_reduce.0", "Distributed", "Distributed", "all_reduce", "0", false},
        {"Odd.0", "Odd", NULL, NULL, "0", false},
        {"A.b.c.d.0", "A", NULL, NULL, "0", false},
        {"", "", NULL, NULL, "", false},
        {"-cmd.0", "-cmd", NULL, NULL, "0", true},
        {"x;@y.0", "x;@y", NULL, NULL, "0", true},
        {"\xef\xbc\x8b"
         "full.0",
         "\xef\xbc\x8b"
         "full",
         NULL, NULL, "0", true},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const pc_dump_api *a = &d->apis[i];
        assert_string_equal(a->full_name, want[i].full);
        assert_string_equal(a->prefix, want[i].prefix);
        assert_string_equal(a->call_index, want[i].index);
        if (want[i].name) {
            assert_string_equal(a->api_type, want[i].type);
            assert_string_equal(a->api_name, want[i].name);
        } else {
            assert_null(a->api_type);
            assert_null(a->api_name);
        }
        assert_int_equal(a->unsafe_name, want[i].unsafe);
        assert_int_equal(pc_dump_check_name(a->full_name), want[i].unsafe ? PC_ERR_INVALID : PC_OK);
        if (want[i].unsafe)
            assert_string_equal(pc_error_message(),
                                "api name contains special characters, please check!");
    }
    assert_non_null(d->apis[1].backward);
    assert_null(d->apis[0].backward);
    assert_string_equal(d->backwards[1].full_name, "Orphan.x.1");
    assert_null(pc_dump_find(d, "Orphan.x.1"));
    assert_null(pc_dump_find(d, "Module.layer1.Conv2d.forward"));
    pc_dump_free(d);
    /* the character check looks at the start and after ';' only */
    assert_false(pc_dump_name_is_unsafe("Tensor.__sub__.0"));
    assert_false(pc_dump_name_is_unsafe("a-b=c%d@e"));
    assert_true(pc_dump_name_is_unsafe("=x"));
    assert_true(pc_dump_name_is_unsafe("%x"));
    assert_true(pc_dump_name_is_unsafe("a;b;+c"));
    assert_true(pc_dump_name_is_unsafe("\xef\xbc\xa0x")); /* U+FF20 */
    assert_false(pc_dump_name_is_unsafe("a;b"));
}

static void test_names_that_are_errors(void **state)
{
    (void)state;
    expect_parse_error(WRAP("\"Functional.conv2d.0.forwardx\": {}"), PC_ERR_FORMAT,
                       "[msprobe] Unexpected name in json: Functional.conv2d.0.forwardx in file "
                       "dump.json");
    expect_parse_error(WRAP("\"Torch.forward_hook.0.backward\": {}"), PC_ERR_FORMAT,
                       "[msprobe] Unexpected name in json: Torch.forward_hook.0.backward in file "
                       "dump.json");
    expect_parse_error(WRAP("\"Tensor.add.0.backward.1\": {}"), PC_ERR_FORMAT,
                       "[msprobe] Unexpected name in json: Tensor.add.0.backward.1 in file "
                       "dump.json");
    expect_parse_error(WRAP("\"Functional.relu.0.forward\": {}, \"Tensor.add.0\": {}"),
                       PC_ERR_FORMAT,
                       "[msprobe] Unexpected name in json: Tensor.add.0 in file dump.json");
    expect_parse_error(WRAP("\"Forward.x.0\": {}"), PC_ERR_FORMAT,
                       "[msprobe] Unexpected name in json: Forward.x.0 in file dump.json");
}

static void test_duplicates_and_pairing(void **state)
{
    (void)state;
    pc_dump *d = parse_ok(
        WRAP("\"Torch.matmul.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 1}]},"
             "\"Torch.add.0.forward\": {\"input_args\": []},"
             "\"Torch.matmul.0.backward\": {\"input\": [null]},"
             "\"Torch.matmul.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 2}]},"
             "\"Torch.matmul.0.backward\": {\"input\": [null, null]}"));
    assert_int_equal(d->api_count, 2);
    assert_int_equal(d->backward_count, 1);
    /* the first position, the last body (Python's dict) */
    assert_string_equal(d->apis[0].full_name, "Torch.matmul.0");
    assert_int_equal(arg_at(&d->apis[0].forward.input_args, 0)->value.u.i, 2);
    assert_int_equal(d->apis[0].backward->input.u.list.count, 2);
    assert_int_equal(d->apis[0].forward.line, 1);
    pc_dump_free(d);
    /* a key repeated inside a record: the last value, at the first position */
    d = parse_ok(WRAP("\"Torch.f.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 1, "
                      "\"value\": 5}], \"input_kwargs\": {\"a\": {\"type\": \"int\", \"value\": 1},"
                      " \"b\": null, \"a\": {\"type\": \"str\", \"value\": \"x\"}}}"));
    const pc_dump_api *a = &d->apis[0];
    assert_int_equal(arg_at(&a->forward.input_args, 0)->value.u.i, 5);
    assert_int_equal(a->forward.kwarg_count, 2);
    assert_string_equal(a->forward.kwargs[0].key, "a");
    assert_int_equal(a->forward.kwargs[0].value.kind, PC_DUMP_ARG_STR);
    assert_string_equal(a->forward.kwargs[1].key, "b");
    pc_dump_free(d);
}

static void test_top_level(void **state)
{
    (void)state;
    const char *no_data = "[msprobe] Invalid dump.json format: something wrong with dump, no "
                          "data found in dump.json";
    expect_parse_error("{\"task\": \"statistics\"}", PC_ERR_FORMAT, no_data);
    expect_parse_error("{\"task\": \"statistics\", \"data\": null}", PC_ERR_FORMAT, no_data);
    expect_parse_error("{\"data\": {}, \"data\": null}", PC_ERR_FORMAT, no_data);
    expect_parse_error("{\"data\": [1]}", PC_ERR_FORMAT,
                       "[msprobe] Invalid dump.json format: something wrong with dump, \"data\" "
                       "in dump.json is not an object");
    expect_parse_error("[1, 2]", PC_ERR_FORMAT,
                       "[msprobe] Invalid dump.json format: something wrong with dump, no data "
                       "found in dump.json (dump.json holds a JSON array, not an object)");
    expect_parse_error("", PC_ERR_FORMAT, "dump.json:1:1: expected '{', found end of input");
    pc_dump *d = parse_ok("{\"task\": \"tensor\", \"dump_data_dir\": \"/x\", \"data\": {}}");
    assert_true(d->data_empty);
    assert_int_equal(d->api_count, 0);
    assert_true(d->has_real_data);
    pc_dump_free(d);
    /* dump_data_dir: only its truthiness matters */
    static const struct {
        const char *value;
        bool truthy;
    } dirs[] = {{"null", false}, {"\"\"", false},  {"\"/a\"", true}, {"0", false},
                {"1", true},     {"false", false}, {"[]", false},    {"[0]", true}};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"dump_data_dir\": %s, \"data\": {}}", dirs[i].value);
        d = parse_ok(text);
        assert_int_equal(d->has_real_data, dirs[i].truthy);
        pc_dump_free(d);
    }
    /* a later "data" replaces an earlier one, and "data" need not come last */
    d = parse_ok(
        "{\"data\": {\"A.b.0.forward\": {}}, \"level\": \"mix\", \"data\": {\"C.d.0.forward\": "
        "{}, \"C.d.1.forward\": {}}, \"task\": \"statistics\"}");
    assert_int_equal(d->api_count, 2);
    assert_string_equal(d->apis[0].full_name, "C.d.0");
    assert_null(pc_dump_find(d, "A.b.0"));
    assert_string_equal(d->level, "mix");
    assert_null(d->framework);
    pc_dump_free(d);
}

static void test_open_errors(void **state)
{
    (void)state;
    pc_dump *d = NULL;
    assert_int_equal(pc_dump_open(&d, DUMPS "no_such/dump.json"), PC_ERR_NOT_FOUND);
    assert_null(d);
    assert_string_equal(pc_error_message(), DUMPS "no_such/dump.json: No such file or directory");
    assert_int_equal(pc_dump_open(&d, DUMPS), PC_ERR_IO);
    assert_string_equal(pc_error_message(), DUMPS ": not a regular file");
    pc_dump_free(NULL);
}

/* The synthetic dump of bench/ at a small size: it parses, and has what it promises. */
static void test_synthetic_dump(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(synth_dump_write(f, 120, 7), 0);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    pc_dump *d = NULL;
    assert_int_equal(pc_dump_parse(&d, text, (size_t)size, "synthetic.json"), PC_OK);
    free(text);
    assert_int_equal(d->api_count, 120);
    assert_int_equal(d->backward_count, 120);
    size_t nans = 0, infs = 0;
    for (size_t i = 0; i < d->api_count; i++) {
        const pc_dump_api *a = &d->apis[i];
        char name[64];
        snprintf(name, sizeof name, "Functional.linear.%zu", i);
        assert_string_equal(a->full_name, name);
        assert_string_equal(a->api_name, "linear");
        assert_non_null(a->backward);
        assert_int_equal(a->forward.input_args.u.list.count, 3);
        assert_int_equal(a->backward->output.u.list.count, 3);
        for (size_t k = 0; k < 3; k++) {
            const pc_dump_tensor *t = a->forward.input_args.u.list.items[k].u.tensor;
            assert_true(t->dtype == PC_DTYPE_F32 || t->dtype == PC_DTYPE_BF16);
            if (isnan(t->max.u.f))
                nans++;
            if (isinf(t->max.u.f)) /* (isinf is -1 for -inf in glibc: counted, not added) */
                infs++;
        }
    }
    assert_true(nans > 0 && infs > 0);
    pc_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_every_record),
        cmocka_unit_test(test_fixtures_spot_checks),
        cmocka_unit_test(test_spec_sample1),
        cmocka_unit_test(test_spec_sample2),
        cmocka_unit_test(test_spec_sample3),
        cmocka_unit_test(test_entry_names),
        cmocka_unit_test(test_names_that_are_errors),
        cmocka_unit_test(test_duplicates_and_pairing),
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_synthetic_dump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
