/*
 * Where a failing API sits in the model (runner/location.h): msprobe's stack.json in both
 * layouts (before 8.1.1 one stack per name, from 8.1.1 names grouped by stack) and
 * construct.json (the calling module and its parents), from real dumps cut small
 * (fixtures/msprobe/versions/where); missing files give no location and no message, malformed
 * ones a WARNING and no location; and a run_ut whose linear fails puts its place in the log and
 * in the summary JSON.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/io/json.h"
#include "precheck/runner/location.h"

#define WHERE PC_TEST_FIXTURES "/msprobe/versions/where"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    PC_TEST_FMT(path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* pc_locations_load with the log captured into log (at most size bytes). */
static pc_locations *load_logged(const char *dir, char *log, size_t size)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    pc_log_set_stream(f);
    pc_locations *l = NULL;
    assert_int_equal(pc_locations_load(&l, dir), PC_OK);
    pc_log_set_stream(NULL);
    rewind(f);
    size_t n = fread(log, 1, size - 1, f);
    log[n] = 0;
    fclose(f);
    assert_non_null(l);
    return l;
}

static void test_stack_per_name(void **state) /* msprobe 1.3.0 */
{
    (void)state;
    char log[4096];
    pc_locations *l = load_logged(WHERE "/1.3.0_statistics", log, sizeof log);
    assert_string_equal(log, "");
    assert_int_equal(pc_locations_count(l), 4);
    pc_location loc;
    assert_true(pc_locations_find(l, "Functional.linear.0", &loc));
    assert_int_equal(loc.n_frames, 7);
    assert_non_null(loc.user); /* msprobe's, torch's linear.py and module.py are skipped */
    assert_ptr_equal(loc.user, &loc.frames[3]);
    assert_string_equal(loc.user->file, "/home/user/llm/dump_model.py");
    assert_int_equal(loc.user->line, 44);
    assert_string_equal(loc.user->function, "forward");
    assert_string_equal(loc.user->code, "q, k, v = self.qkv(h).split(self.d, dim=-1)");
    assert_string_equal(loc.frames[1].file,
                        "/opt/conda/lib/python3.9/site-packages/torch/nn/modules/linear.py");
    assert_int_equal(loc.frames[1].line, 114);
    assert_true(strncmp(loc.frames[0].text, "File /opt/conda/", 16) == 0);
    assert_int_equal(loc.n_modules, 0); /* construct.json is {} at level L1 */
    assert_true(pc_locations_find(l, "Torch.matmul.0", &loc));
    assert_int_equal(loc.user->line, 49);
    assert_false(pc_locations_find(l, "Functional.gelu.0", &loc));
    assert_null(loc.frames);
    pc_locations_free(l);
}

static void test_grouped_stacks_and_modules(void **state) /* msprobe 8.3.3, level mix */
{
    (void)state;
    char log[4096];
    pc_locations *l = load_logged(WHERE "/8.3.3_mix", log, sizeof log);
    assert_string_equal(log, "");
    pc_location loc;
    /* the second name of a group has the group's stack */
    assert_true(pc_locations_find(l, "Functional.embedding.1", &loc));
    assert_non_null(loc.user);
    assert_int_equal(loc.user->line, 42);
    assert_string_equal(loc.user->code, "x = self.tok(idx) + self.pos(pos)");
    assert_int_equal(loc.n_modules, 1);
    assert_string_equal(loc.modules[0], "Module.pos.Embedding.forward.0");
    assert_true(pc_locations_find(l, "Functional.embedding.0", &loc));
    assert_string_equal(loc.modules[0], "Module.tok.Embedding.forward.0");
    assert_true(pc_locations_find(l, "Torch.matmul.0", &loc)); /* third of three */
    assert_int_equal(loc.user->line, 49);
    assert_int_equal(loc.n_modules, 0); /* null: called by the model itself */
    assert_true(pc_locations_find(l, "Functional.linear.0", &loc));
    assert_string_equal(loc.modules[0], "Module.qkv.Linear.forward.0");
    assert_int_equal(loc.user->line, 44);
    pc_locations_free(l);
}

static void test_module_chain(void **state)
{
    (void)state;
    char dir[512], log[4096];
    pc_test_tmpdir(dir, sizeof dir);
    write_file(
        dir, "construct.json",
        "{\"Functional.linear.7.forward\": \"Module.layers.0.attn.q.Linear.forward.0\",\n"
        " \"Module.layers.0.attn.q.Linear.forward.0\": \"Module.layers.0.attn.Attn.forward.0\",\n"
        " \"Module.layers.0.attn.Attn.forward.0\": \"Module.layers.0.Block.forward.0\",\n"
        " \"Module.layers.0.Block.forward.0\": null,\n"
        " \"Functional.relu.0.backward\": \"Module.a.A.backward.0\",\n"
        " \"Module.a.A.backward.0\": \"Module.b.B.backward.0\",\n"
        " \"Module.b.B.backward.0\": \"Module.a.A.backward.0\"}\n");
    pc_locations *l = load_logged(dir, log, sizeof log);
    assert_string_equal(log, "");
    pc_location loc;
    assert_true(pc_locations_find(l, "Functional.linear.7", &loc));
    assert_null(loc.frames); /* no stack.json: modules only */
    assert_int_equal(loc.n_modules, 3);
    assert_string_equal(loc.modules[0], "Module.layers.0.Block.forward.0");
    assert_string_equal(loc.modules[1], "Module.layers.0.attn.Attn.forward.0");
    assert_string_equal(loc.modules[2], "Module.layers.0.attn.q.Linear.forward.0");
    /* the backward entry when there is no forward one; a cycle stops */
    assert_true(pc_locations_find(l, "Functional.relu.0", &loc));
    assert_true(loc.n_modules >= 2 && loc.n_modules <= 64);
    assert_string_equal(loc.modules[loc.n_modules - 1], "Module.a.A.backward.0");
    pc_locations_free(l);
}

static void test_missing_files(void **state)
{
    (void)state;
    char dir[512], log[4096];
    pc_test_tmpdir(dir, sizeof dir);
    pc_locations *l = load_logged(dir, log, sizeof log);
    assert_string_equal(log, ""); /* no files: no location, and nothing said */
    assert_int_equal(pc_locations_count(l), 0);
    pc_location loc;
    assert_false(pc_locations_find(l, "Functional.linear.0", &loc));
    pc_locations_free(l);
    assert_false(pc_locations_find(NULL, "Functional.linear.0", &loc));
    /* a dump.json path: its folder */
    char dump[600];
    PC_TEST_FMT(dump, "%s/dump.json", WHERE "/8.3.3_mix");
    assert_int_equal(pc_locations_load_for_dump(&l, dump), PC_OK);
    assert_true(pc_locations_find(l, "Functional.linear.0", &loc));
    pc_locations_free(l);
}

static void test_malformed_files(void **state)
{
    (void)state;
    static const char *const bad_stacks[] = {
        "[1, 2]",                               /* not an object */
        "{\"Functional.linear.0.forward\": 3}", /* not a list of frames */
        "{\"0\": [[\"Functional.linear.0.forward\"], [\"File a.py, line 1, in f, \\n x\", 5]]}",
        "{\"0\": [[7], [\"File a.py, line 1, in f, \\n x\"]]}", /* a name that is not a string */
        "{\"Functional.linear.0.forward\": [\"File a.py",       /* cut short */
    };
    for (size_t i = 0; i < sizeof bad_stacks / sizeof bad_stacks[0]; i++) {
        char dir[512], log[4096];
        pc_test_tmpdir(dir, sizeof dir);
        write_file(dir, "stack.json", bad_stacks[i]);
        write_file(dir, "construct.json",
                   "{\"Functional.linear.0.forward\": \"Module.m.M.forward.0\"}");
        pc_locations *l = load_logged(dir, log, sizeof log);
        if (!strstr(log, "WARNING") || !strstr(log, "stack.json is left out"))
            fail_msg("case %zu: no WARNING: [%s]", i, log);
        pc_location loc;
        /* construct.json still counts; nothing of the bad stack.json does */
        assert_true(pc_locations_find(l, "Functional.linear.0", &loc));
        assert_null(loc.frames);
        assert_int_equal(loc.n_modules, 1);
        pc_locations_free(l);
    }
    char dir[512], log[4096];
    pc_test_tmpdir(dir, sizeof dir);
    write_file(dir, "construct.json", "{\"Functional.linear.0.forward\": 12}");
    pc_locations *l = load_logged(dir, log, sizeof log);
    assert_non_null(strstr(log, "construct.json is left out"));
    assert_non_null(strstr(log, "expected a module name or null"));
    assert_int_equal(pc_locations_count(l), 0);
    pc_locations_free(l);
    /* a frame in another form: kept whole, never the user's unless it names a file */
    pc_test_tmpdir(dir, sizeof dir);
    write_file(dir, "stack.json",
               "{\"Torch.add.0.forward\": [\"something else\", \"File /w/train.py, line x\","
               " \"File /w/train.py, line 9, in step, \\n  y = torch.add(a, b)  \"]}");
    l = load_logged(dir, log, sizeof log);
    assert_string_equal(log, "");
    pc_location loc;
    assert_true(pc_locations_find(l, "Torch.add.0", &loc));
    assert_int_equal(loc.n_frames, 3);
    assert_string_equal(loc.frames[0].file, "something else");
    assert_int_equal(loc.frames[0].line, 0);
    assert_ptr_equal(loc.user, &loc.frames[0]);
    assert_string_equal(loc.frames[2].function, "step");
    assert_string_equal(loc.frames[2].code, "y = torch.add(a, b)");
    pc_locations_free(l);
}

static void test_library_frames(void **state)
{
    (void)state;
    static const char *const library[] = {
        "/opt/conda/lib/python3.9/site-packages/torch/nn/modules/module.py",
        "/usr/lib/python3/dist-packages/torch/functional.py",
        "/usr/local/lib/python3.10/dist-packages/msprobe/core/hook.py",
        "/home/u/src/torch_npu/torch_npu/utils/_step.py", /* a source checkout */
        "/home/u/src/msprobe/pytorch/api_accuracy_checker/run_ut.py",
        "/usr/lib/python3.11/contextlib.py", /* Python's own */
        "/usr/lib64/python3.9/runpy.py",
        "<frozen runpy>",
        "<string>",
        "",
    };
    for (size_t i = 0; i < sizeof library / sizeof library[0]; i++)
        if (!pc_location_frame_is_library(library[i]))
            fail_msg("%s: should be a library's", library[i]);
    static const char *const user[] = {
        "/home/user/llm/dump_model.py",
        "/srv/models/torchvision_models/resnet.py", /* "torch" inside a
                                                 name, not a folder
                                               */
        "/srv/my_torch/train.py",
        "/home/u/lib/pythonic/model.py",
        "train.py",
    };
    for (size_t i = 0; i < sizeof user / sizeof user[0]; i++)
        if (pc_location_frame_is_library(user[i]))
            fail_msg("%s: should be the user's", user[i]);
}

/* run_ut with a faulty linear on the 1.3.0 dump: the log and the summary JSON say where. */
static void test_run_ut_says_where(void **state)
{
    (void)state;
    char dir[512], args[2048], log[600], json[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log.txt", dir);
    PC_TEST_FMT(args,
                "run_ut -api_info %s/dump.json -o %s --backend faulty:swap_block:linear,"
                "swap_block:matmul",
                WHERE "/1.3.0_statistics", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    if (!pc_test_file_contains(log, "        at /home/user/llm/dump_model.py:44 in forward: q, k, "
                                    "v = self.qkv(h).split(self.d, dim=-1)"))
        fail_msg("no location in the log:\n%s", pc_test_slurp(log, NULL));
    pc_test_find_file(dir, "precheck_summary_", json, sizeof json);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref apis = pc_json_object_get(doc, pc_json_root(doc), "apis");
    bool seen_linear = false, seen_pass = false;
    for (pc_json_ref a = pc_json_first(doc, apis); a != PC_JSON_NONE; a = pc_json_next(doc, a)) {
        const char *name = pc_json_string(doc, pc_json_object_get(doc, a, "name"), NULL);
        const char *fwd = pc_json_string(doc, pc_json_object_get(doc, a, "forward"), NULL);
        pc_json_ref w = pc_json_object_get(doc, a, "where");
        if (strcmp(name, "Functional.linear.0") == 0) {
            seen_linear = true;
            assert_string_equal(fwd, "error");
            assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, w, "file"), NULL),
                                "/home/user/llm/dump_model.py");
            assert_true(pc_json_number(doc, pc_json_object_get(doc, w, "line")) == 44);
            assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, w, "function"), NULL),
                                "forward");
            assert_true(pc_json_is_null(doc, pc_json_object_get(doc, w, "module")));
            assert_int_equal(pc_json_count(doc, pc_json_object_get(doc, w, "stack")), 7);
        } else if (strcmp(fwd, "pass") == 0 &&
                   strcmp(pc_json_string(doc, pc_json_object_get(doc, a, "backward"), NULL),
                          "error") != 0) {
            seen_pass = true;
            assert_int_equal(w, PC_JSON_NONE); /* a passing API has no "where" */
        }
    }
    assert_true(seen_linear && seen_pass);
    pc_json_free(doc);

    /* the report: the place in the linear's expanded row, the whole stack one click further */
    char page[600];
    PC_TEST_FMT(page, "%s/page.html", dir);
    PC_TEST_FMT(args, "report %s -o %s", dir, page);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    char *html = pc_test_slurp(page, NULL);
    const char *row = strstr(html, "<tr data-name=\"Functional.linear.0\"");
    assert_non_null(row);
    const char *end = strstr(row + 1, "<tr data-name="); /* the next API's row */
    const char *at = strstr(row, "in the model: <code>/home/user/llm/dump_model.py:44 in forward: "
                                 "q, k, v = self.qkv(h).split(self.d, dim=-1)</code>");
    const char *stack = strstr(row, "whole stack (stack.json, innermost first)");
    const char *frame = strstr(row, "File /opt/conda/lib/python3.9/site-packages/torch/nn/modules/"
                                    "linear.py, line 114, in forward, \n return F.linear(");
    assert_true(at && stack && frame && at < stack && stack < frame && (!end || frame < end));
    /* a passing API has no place shown */
    row = strstr(html, "<tr data-name=\"Tensor.__add__.0\"");
    end = strstr(row + 1, "<tr data-name=");
    at = strstr(row, "in the model:");
    assert_true(!at || (end && at > end));
    free(html);
}

/* No stack.json or construct.json beside the dump: no location, no error; a malformed one: a
 * WARNING, and the run's outputs as without it. */
static void test_run_ut_without_or_bad_files(void **state)
{
    (void)state;
    char dir[512], args[2048], log[600], cmd[2048];
    for (int bad = 0; bad < 2; bad++) {
        pc_test_tmpdir(dir, sizeof dir);
        PC_TEST_FMT(cmd, "cp %s/dump.json %s/ && mkdir %s/out", WHERE "/1.3.0_statistics", dir,
                    dir);
        assert_int_equal(system(cmd), 0);
        if (bad)
            write_file(dir, "stack.json", "{\"Functional.linear.0.forward\": {}}");
        PC_TEST_FMT(log, "%s/log.txt", dir);
        PC_TEST_FMT(args,
                    "run_ut -api_info %s/dump.json -o %s/out --backend faulty:swap_block:linear",
                    dir, dir);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
        assert_false(pc_test_file_contains(log, "        at "));
        assert_int_equal(pc_test_file_contains(log, "stack.json is left out"), bad);
        char json[1024];
        PC_TEST_FMT(cmd, "%s/out", dir);
        pc_test_find_file(cmd, "precheck_summary_", json, sizeof json);
        assert_false(pc_test_file_contains(json, "\"where\""));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_per_name),
        cmocka_unit_test(test_grouped_stacks_and_modules),
        cmocka_unit_test(test_module_chain),
        cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_library_frames),
        cmocka_unit_test(test_run_ut_says_where),
        cmocka_unit_test(test_run_ut_without_or_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
