/*
 * The standalone Python script of one API (precheck op_generate, precheck repro): a head
 * written here from the dump's records (the API, its arguments as Python values, the
 * standard and msprobe's thresholds) and the body every script shares (script_body.inc,
 * made from script_body.py by tools/embed_script.sh).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/compare/standard.h"
#include "precheck/core/dtype.h"
#include "precheck/dump/api_rules.h"
#include "precheck/dump/dump_write.h"
#include "precheck/io/file_out.h"
#include "precheck/ops/op.h"
#include "precheck/repro/repro.h"

static const char script_body[] =
#include "script_body.inc"
    ;

const char *pc_repro_data_mode_name(pc_repro_data_mode m)
{
    switch (m) {
    case PC_REPRO_REAL_DATA:
        return "real_data";
    case PC_REPRO_PRECHECK_INPUTS:
        return "precheck_inputs";
    default:
        return "random_data";
    }
}

typedef struct script {
    FILE *f;
    const pc_repro_script_options *o;
    const pc_dump_api *api;
    pc_status st;
} script;

/* A Python string literal (UTF-8 passes through; quotes, backslashes and controls escaped). */
static void py_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void py_double(FILE *f, double x)
{
    if (isnan(x))
        fputs("float(\"nan\")", f);
    else if (isinf(x))
        fputs(x > 0 ? "float(\"inf\")" : "-float(\"inf\")", f);
    else {
        char buf[PC_JSON_DOUBLE_MAX];
        pc_json_format_double(buf, sizeof buf, x);
        fputs(buf, f);
    }
}

static void py_value(FILE *f, const pc_dump_value *v)
{
    switch ((pc_dump_value_kind)v->kind) {
    case PC_DUMP_VALUE_BOOL:
        fputs(v->u.b ? "True" : "False", f);
        break;
    case PC_DUMP_VALUE_INT:
        fprintf(f, "%" PRId64, v->u.i);
        break;
    case PC_DUMP_VALUE_FLOAT:
        if (v->big_int)
            fprintf(f, "%.0f", v->u.f);
        else
            py_double(f, v->u.f);
        break;
    case PC_DUMP_VALUE_STR:
        py_string(f, v->u.s);
        break;
    case PC_DUMP_VALUE_LIST:
        fputc('[', f);
        for (uint32_t i = 0; i < v->count; i++) {
            if (i)
                fputs(", ", f);
            py_value(f, &v->u.items[i]);
        }
        fputc(']', f);
        break;
    case PC_DUMP_VALUE_OBJECT:
        fputc('{', f);
        for (uint32_t i = 0; i < v->count; i++) {
            if (i)
                fputs(", ", f);
            py_string(f, v->u.members[i].key);
            fputs(": ", f);
            py_value(f, &v->u.members[i].value);
        }
        fputc('}', f);
        break;
    default:
        fputs("None", f);
    }
}

static void py_bound(FILE *f, const pc_dump_value *v)
{
    if (pc_dump_value_is_number(v))
        py_double(f, pc_dump_value_as_double(v));
    else
        fputs("None", f);
}

static void py_tensor(script *s, const pc_dump_tensor *t)
{
    FILE *f = s->f;
    fputs("Tensor(", f);
    py_string(f, t->dtype_name ? t->dtype_name : "torch.float32");
    fputs(", [", f);
    for (int64_t i = 0; i < t->rank; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", t->shape[i]);
    fputs("], ", f);
    py_bound(f, &t->min);
    fputs(", ", f);
    py_bound(f, &t->max);
    const char *file = pc_dump_tensor_file(t);
    if (s->o->data_mode != PC_REPRO_RANDOM_DATA) {
        if (!file) {
            if (s->st == PC_OK)
                s->st = pc_error_set(PC_ERR_UNSUPPORTED,
                                     "%s: a tensor record names no file, so data_mode %s cannot "
                                     "load it; use random_data or a dump written in tensor mode",
                                     s->o->api_full_name, pc_repro_data_mode_name(s->o->data_mode));
            file = "";
        }
        char path[4096];
        if (s->o->tensor_dir && file[0] != '/')
            snprintf(path, sizeof path, "%s/%s", s->o->tensor_dir, file);
        else
            snprintf(path, sizeof path, "%s", file);
        fputs(", ", f);
        py_string(f, path);
    }
    fputc(')', f);
}

static void py_arg(script *s, const pc_dump_arg *a)
{
    FILE *f = s->f;
    switch (a->kind) {
    case PC_DUMP_ARG_TENSOR:
        py_tensor(s, a->u.tensor);
        break;
    case PC_DUMP_ARG_LIST:
        fputc('[', f);
        for (size_t i = 0; i < a->u.list.count; i++) {
            if (i)
                fputs(", ", f);
            py_arg(s, &a->u.list.items[i]);
        }
        fputc(']', f);
        break;
    case PC_DUMP_ARG_OBJECT:
        fputc('{', f);
        for (size_t i = 0; i < a->u.object.count; i++) {
            if (i)
                fputs(", ", f);
            py_string(f, a->u.object.fields[i].key);
            fputs(": ", f);
            py_arg(s, &a->u.object.fields[i].value);
        }
        fputc('}', f);
        break;
    case PC_DUMP_ARG_SLICE:
        fputs("slice(", f);
        if (a->u.slice.has_start)
            fprintf(f, "%" PRId64, a->u.slice.start);
        else
            fputs("None", f);
        fputs(", ", f);
        if (a->u.slice.has_stop)
            fprintf(f, "%" PRId64, a->u.slice.stop);
        else
            fputs("None", f);
        fputs(", ", f);
        if (a->u.slice.has_step)
            fprintf(f, "%" PRId64, a->u.slice.step);
        else
            fputs("None", f);
        fputc(')', f);
        break;
    case PC_DUMP_ARG_ELLIPSIS:
        fputs("Ellipsis", f);
        break;
    case PC_DUMP_ARG_SIZE:
        fputs("torch.Size([", f);
        for (size_t i = 0; i < a->u.size.rank; i++)
            fprintf(f, "%s%" PRId64, i ? ", " : "", a->u.size.dims[i]);
        fputs("])", f);
        break;
    case PC_DUMP_ARG_DTYPE:
        fputs("dtype_of(", f);
        py_string(f, a->value.kind == PC_DUMP_VALUE_STR ? a->value.u.s : "torch.float32");
        fputc(')', f);
        break;
    case PC_DUMP_ARG_DEVICE:
        fputs("DEVICE", f);
        break;
    case PC_DUMP_ARG_INT:
    case PC_DUMP_ARG_FLOAT:
    case PC_DUMP_ARG_BOOL:
    case PC_DUMP_ARG_STR:
    case PC_DUMP_ARG_NUMPY:
    case PC_DUMP_ARG_RAW:
        py_value(f, &a->value);
        break;
    case PC_DUMP_ARG_OTHER:
        if (s->st == PC_OK)
            s->st = pc_error_set(PC_ERR_UNSUPPORTED,
                                 "%s: an argument of type %s cannot be rebuilt in a script",
                                 s->o->api_full_name, a->type ? a->type : "?");
        fputs("None", f);
        break;
    default:
        fputs("None", f);
    }
}

static const char *standard_word(pc_standard s)
{
    return pc_standard_name(s);
}

static void thresholds(FILE *f, const char *name, pc_dtype d)
{
    const pc_msprobe_thresholds *t = pc_dtype_traits_of(d)->thresholds;
    fprintf(f, "    \"%s\": {\"small_value\": ", name);
    py_double(f, t->small_value);
    fputs(", \"small_value_atol_abs\": ", f);
    py_double(f, t->small_value_atol_abs);
    fputs(", \"small_value_atol_bench\": ", f);
    py_double(f, t->small_value_atol_bench);
    fputs(",\n        \"rtol\": ", f);
    py_double(f, t->rtol);
    fputs(", \"accum_small_value\": ", f);
    py_double(f, t->accum_small_value);
    fputs(", \"accum_bound\": ", f);
    py_double(f, t->accum_bound);
    fprintf(f, ", \"ulp_min_exp\": %d, \"ulp_mantissa_bits\": %d,\n        \"ulp_threshold\": ",
            t->ulp_min_exp, t->ulp_mantissa_bits);
    py_double(f, t->ulp_elem_threshold);
    fputs(", \"bench_eps\": ", f);
    py_double(f, t->bench_eps_override);
    fputs("},\n", f);
}

static void write_head(script *s)
{
    FILE *f = s->f;
    const pc_repro_script_options *o = s->o;
    const pc_dump_api *api = s->api;
    const char *prop = o->backward ? "backward" : "forward";
    fprintf(f, "#!/usr/bin/env python3\n");
    fprintf(f, "# -*- coding: utf-8 -*-\n");
    fprintf(f,
            "# %s, %s: runs this one API on this machine's device (npu if torch_npu imports,\n"
            "# else cuda, else cpu) and on a CPU bench, and prints per output run_ut's metrics "
            "and verdict.\n",
            o->api_full_name, prop);
    fprintf(f,
            "# Written by precheck (op_generate / repro)%s%s. Needs torch only (and torch_npu "
            "on an NPU).\n",
            o->source ? " from " : "", o->source ? o->source : "");
    fprintf(f, "# Run: python3 %s.%s.py [--device npu|cuda|cpu] [--csv rows.csv]\n\n",
            o->api_full_name, prop);
    fputs("import torch\n\n", f);
    fputs("API_FULL_NAME = ", f);
    py_string(f, o->api_full_name);
    fputs("\nAPI_TYPE = ", f);
    py_string(f, api->api_type ? api->api_type : "");
    fputs("\nAPI_NAME = ", f);
    py_string(f, api->api_name ? api->api_name : "");
    fprintf(f,
            "\nPROPAGATION = \"%s\"\nDATA_MODE = \"%s\"\nRANDOM_SEED = %" PRId64
            "\nITER_TIMES = %" PRId64 "\n",
            prop, pc_repro_data_mode_name(o->data_mode), o->seed, o->iter_times);
    const pc_api_rule *rule = pc_api_rule_of(api->api_name);
    if (rule->grad_index >= 0)
        fprintf(f, "GRAD_INDEX = %d\n", rule->grad_index);
    else
        fputs("GRAD_INDEX = None\n", f);
    fprintf(f, "STANDARD = \"%s\"  # run_ut's standard for float outputs (compare/standard.c)\n",
            standard_word(pc_standard_of_api(api->api_name)));
    /* the bench's dtypes: msprobe's rule, but for the ops whose bench keeps its inputs */
    const pc_api_name *row = pc_api_lookup(api->api_type, api->api_name);
    unsigned rules = row && row->op ? row->op->rules : 0;
    fprintf(f, "RAISE_BENCH = \"%s\"  # all, half (float16/bfloat16 only) or none\n",
            rules & PC_OP_BENCH_NEVER      ? "none"
            : rules & PC_OP_BENCH_KEEP_F32 ? "half"
                                           : "all");
    fputs("INPUTS_TEXT = ", f);
    py_string(f, o->inputs_text ? o->inputs_text : pc_repro_data_mode_name(o->data_mode));
    fputs("\nEXPECTED = ", f);
    if (o->expected)
        py_string(f, o->expected);
    else
        fputs("None", f);
    fputs("\n# msprobe's thresholds by the device output dtype (precheck dtypes)\nTHRESHOLDS = {\n",
          f);
    thresholds(f, "torch.float16", PC_DTYPE_F16);
    thresholds(f, "torch.bfloat16", PC_DTYPE_BF16);
    thresholds(f, "torch.float32", PC_DTYPE_F32);
    thresholds(f, "other", PC_DTYPE_F64);
    fputs("}\n\n\ndef inputs():\n    \"\"\"The arguments as the dump recorded them.\"\"\"\n", f);
    fputs("    args = ", f);
    const pc_dump_entry *fw = &api->forward;
    if (fw->input_args.kind == PC_DUMP_ARG_LIST)
        py_arg(s, &fw->input_args);
    else
        fputs("[]", f);
    fputs("\n    kwargs = {", f);
    for (size_t i = 0; i < fw->kwarg_count; i++) {
        if (i)
            fputs(",\n              ", f);
        py_string(f, fw->kwargs[i].key);
        fputs(": ", f);
        py_arg(s, &fw->kwargs[i].value);
    }
    fputs("}\n    grads = ", f);
    if (o->backward && api->backward && api->backward->input.kind == PC_DUMP_ARG_LIST)
        py_arg(s, &api->backward->input);
    else
        fputs("[]", f);
    fputs("\n    return args, kwargs, grads\n", f);
}

pc_status pc_repro_script_write(const pc_repro_script_options *o, const char *path)
{
    const pc_dump_api *api = pc_dump_find(o->dump, o->api_full_name);
    if (!api)
        return pc_error_set(PC_ERR_NOT_FOUND, "API %s has no forward entry in %s", o->api_full_name,
                            o->dump->path);
    if (o->backward && !api->backward)
        return pc_error_set(PC_ERR_NOT_FOUND,
                            "API %s has no backward entry in %s: use propagation forward, or a "
                            "dump of a training step (msprobe dumps backward with level L1)",
                            o->api_full_name, o->dump->path);
    if (!api->api_type || !api->api_name)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "API %s: its name cannot be split into type, "
                            "name and call index",
                            o->api_full_name);
    pc_file_out fo;
    pc_status st = pc_file_out_open(&fo, path, PC_FILE_OUT_REPLACE);
    if (st != PC_OK)
        return st;
    script s = {.f = fo.f, .o = o, .api = api};
    write_head(&s);
    fputs(script_body, fo.f);
    st = s.st;
    if (st == PC_OK)
        st = pc_file_out_commit(&fo);
    pc_file_out_free(&fo);
    return st;
}
