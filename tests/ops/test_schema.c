/* Operator schema strings: the forms the op table uses, and the errors a typo gives. */
#include "pc_test.h"

#include <math.h>
#include <string.h>

#include "precheck/ops/schema.h"

static void test_layer_norm(void **state)
{
    (void)state;
    pc_schema s;
    assert_int_equal(pc_schema_parse("layer_norm(Tensor input, int[] normalized_shape, Tensor? "
                                     "weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
                                     &s),
                     PC_OK);
    assert_string_equal(s.name, "layer_norm");
    assert_string_equal(s.overload, "");
    assert_int_equal(s.nargs, 5);
    assert_int_equal(s.npositional, 5);
    assert_int_equal(s.args[0].type, PC_ARG_TENSOR);
    assert_false(s.args[0].optional);
    assert_int_equal(s.args[0].def.kind, PC_DEFAULT_NONE_GIVEN);
    assert_true(s.args[1].type == PC_ARG_INT && s.args[1].is_list && s.args[1].list_size == 0);
    assert_true(s.args[2].optional && s.args[2].def.kind == PC_DEFAULT_NULL);
    assert_int_equal(s.args[4].def.kind, PC_DEFAULT_FLOAT);
    assert_true(s.args[4].def.f == 1e-05);
    assert_int_equal(s.nreturns, 1);
    assert_int_equal(s.returns[0].type, PC_ARG_TENSOR);
    assert_int_equal(pc_schema_find_arg(&s, "eps"), 4);
    assert_int_equal(pc_schema_find_arg(&s, "nope"), -1);
}

static void test_overload_kwonly_alias(void **state)
{
    (void)state;
    pc_schema s;
    assert_int_equal(pc_schema_parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar "
                                     "alpha=1) -> Tensor(a!)",
                                     &s),
                     PC_OK);
    assert_string_equal(s.name, "add_");
    assert_string_equal(s.overload, "Tensor");
    assert_int_equal(s.nargs, 3);
    assert_int_equal(s.npositional, 2);
    assert_true(s.args[0].mutates && s.args[0].alias == 'a');
    assert_false(s.args[1].mutates);
    assert_true(s.args[2].kwarg_only && s.args[2].type == PC_ARG_SCALAR);
    assert_true(s.args[2].def.kind == PC_DEFAULT_INT && s.args[2].def.i == 1);
    assert_int_equal(s.returns[0].alias, 'a');
}

static void test_lists_and_defaults(void **state)
{
    (void)state;
    pc_schema s;
    assert_int_equal(
        pc_schema_parse("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                        "int[2] padding=0, int[2] dilation=[1, 1], bool "
                        "ceil_mode=False) -> Tensor",
                        &s),
        PC_OK);
    assert_int_equal(s.args[1].list_size, 2);
    assert_true(s.args[2].def.kind == PC_DEFAULT_LIST && s.args[2].def.list_len == 0);
    assert_true(s.args[3].def.kind == PC_DEFAULT_INT && s.args[3].def.i == 0);
    assert_true(s.args[4].def.list_len == 2 && s.args[4].def.list[1] == 1.0);
    assert_false(s.args[4].def.list_is_float);
    assert_true(s.args[5].def.kind == PC_DEFAULT_BOOL && !s.args[5].def.b);

    assert_int_equal(pc_schema_parse("cross_entropy(Tensor input, Tensor target, Tensor? "
                                     "weight=None, int ignore_index=-100, str reduction='mean', "
                                     "float label_smoothing=0.0) -> Tensor",
                                     &s),
                     PC_OK);
    assert_true(s.args[3].def.kind == PC_DEFAULT_INT && s.args[3].def.i == -100);
    assert_true(s.args[4].def.kind == PC_DEFAULT_STR);
    assert_string_equal(s.args[4].def.text, "mean");
    assert_true(s.args[5].def.kind == PC_DEFAULT_FLOAT && s.args[5].def.f == 0.0);

    assert_int_equal(pc_schema_parse("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> "
                                     "Tensor",
                                     &s),
                     PC_OK);
    assert_true(s.args[1].optional && s.args[1].type == PC_ARG_SCALAR);

    assert_int_equal(pc_schema_parse("f(Tensor?[] indices, SymInt[]? size=None, float x=-inf, "
                                     "float y=nan, MemoryFormat m=contiguous_format, "
                                     "str s=\"a b\", ScalarType? dtype=None) -> ()",
                                     &s),
                     PC_OK);
    assert_true(s.args[0].is_list && s.args[0].elem_optional && !s.args[0].optional);
    assert_true(s.args[1].is_list && s.args[1].optional && s.args[1].type == PC_ARG_INT);
    assert_true(isinf(s.args[2].def.f) && s.args[2].def.f < 0);
    assert_true(isnan(s.args[3].def.f));
    assert_int_equal(s.args[4].def.kind, PC_DEFAULT_IDENT);
    assert_string_equal(s.args[4].def.text, "contiguous_format");
    assert_string_equal(s.args[5].def.text, "a b");
    assert_int_equal(s.nreturns, 0);
}

static void test_returns(void **state)
{
    (void)state;
    pc_schema s;
    assert_int_equal(pc_schema_parse("max.dim(Tensor self, int dim, bool keepdim=False) -> "
                                     "(Tensor values, Tensor indices)",
                                     &s),
                     PC_OK);
    assert_int_equal(s.nreturns, 2);
    assert_string_equal(s.returns[0].name, "values");
    assert_string_equal(s.returns[1].name, "indices");
    assert_int_equal(
        pc_schema_parse("split(Tensor self, int split_size, int dim=0) -> Tensor[]", &s), PC_OK);
    assert_true(s.returns[0].is_list);
    assert_int_equal(pc_schema_parse("f() -> Tensor", &s), PC_OK);
    assert_int_equal(s.nargs, 0);
}

/* torch's Python overloads of one name: a str-or-Type argument, a second keyword name. */
static void test_unions(void **state)
{
    (void)state;
    pc_schema s;
    assert_int_equal(pc_schema_parse("norm(Tensor input, str|Scalar? p='fro', int[1]? dim=None, "
                                     "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                                     &s),
                     PC_OK);
    assert_true(s.args[1].or_str && s.args[1].type == PC_ARG_SCALAR && s.args[1].optional);
    assert_true(s.args[1].def.kind == PC_DEFAULT_STR && strcmp(s.args[1].def.text, "fro") == 0);
    assert_false(s.args[0].or_str || s.args[2].or_str);
    assert_string_equal(s.args[1].alt_name, "");
    assert_int_equal(pc_schema_parse("scatter(Tensor input, int dim, Tensor index, Tensor "
                                     "src|Scalar value, *, str? reduce=None) -> Tensor",
                                     &s),
                     PC_OK);
    assert_int_equal(s.nargs, 5);
    assert_int_equal(s.npositional, 4);
    assert_string_equal(s.args[3].name, "src");
    assert_string_equal(s.args[3].alt_name, "value");
    assert_int_equal(s.args[3].type, PC_ARG_TENSOR);
    assert_int_equal(s.args[3].alt_type, PC_ARG_SCALAR);
    assert_false(s.args[3].or_str);
    assert_int_equal(pc_schema_find_arg(&s, "src"), 3);
    assert_int_equal(pc_schema_find_arg(&s, "value"), 3);
    assert_int_equal(pc_schema_find_arg(&s, "reduce"), 4);
}

static void expect_error(const char *text, pc_status want, const char *fragment)
{
    pc_schema s;
    memset(&s, 0x5a, sizeof s);
    pc_schema before = s;
    pc_status got = pc_schema_parse(text, &s);
    if (got != want) {
        print_error("\"%s\" gave status %d, want %d\n", text, (int)got, (int)want);
        fail();
    }
    if (!strstr(pc_error_message(), fragment)) {
        print_error("message \"%s\" lacks \"%s\"\n", pc_error_message(), fragment);
        fail();
    }
    assert_memory_equal(&s, &before, sizeof s); /* untouched on failure */
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("f(Tensr x) -> Tensor", PC_ERR_FORMAT, "column 3: expected a known type");
    expect_error("f(Tensor x -> Tensor", PC_ERR_FORMAT, "expected ',' or ')' after an argument");
    expect_error("f(Tensor x)", PC_ERR_FORMAT, "expected '->' before the returns");
    expect_error("f(Tensor x) -> Tensor name junk", PC_ERR_FORMAT,
                 "expected the end of the schema");
    expect_error("f(Tensor x=None) -> Tensor", PC_ERR_FORMAT, "defaults to None");
    expect_error("f(Tensor x, Tensor x) -> Tensor", PC_ERR_FORMAT, "not used before");
    expect_error("f(str s='abc) -> Tensor", PC_ERR_FORMAT, "closing quote");
    expect_error("f(int[] a=[1, x]) -> Tensor", PC_ERR_FORMAT, "expected a number");
    expect_error("f(int a=@) -> Tensor", PC_ERR_FORMAT, "expected a default value");
    expect_error("f(*, *, int a) -> Tensor", PC_ERR_FORMAT, "only one '*'");
    expect_error("f(Tensor(A) a) -> Tensor", PC_ERR_FORMAT, "alias set letter");
    expect_error("", PC_ERR_FORMAT, "expected an operator name");
    expect_error("f(int a=99999999999999999999) -> Tensor", PC_ERR_FORMAT, "fits in 64 bits");
    expect_error("f(int[] a=[1,2,3,4,5,6,7,8,9]) -> Tensor", PC_ERR_RANGE, "more than 8");
    expect_error("f(str|str a) -> Tensor", PC_ERR_FORMAT, "a type other than str after 'str|'");
    expect_error("f(int|str a) -> Tensor", PC_ERR_FORMAT, "expected an argument name");
    expect_error("f(Tensor a|Scalar a) -> Tensor", PC_ERR_FORMAT, "not used before");
    expect_error("f(Tensor a, Tensor b|Scalar a) -> Tensor", PC_ERR_FORMAT, "not used before");
    expect_error("f(Tensor a|Scalar b, int b) -> Tensor", PC_ERR_FORMAT, "not used before");
    expect_error("f(Tensor a|Scalr b) -> Tensor", PC_ERR_FORMAT, "expected a known type");
    expect_error("f(Tensor a) -> str|Tensor", PC_ERR_FORMAT, "expected the end of the schema");
    char longname[200];
    memset(longname, 'x', 100);
    strcpy(longname + 100, "(Tensor a) -> Tensor");
    expect_error(longname, PC_ERR_RANGE, "name longer than 63 bytes");
    pc_schema s;
    assert_int_equal(pc_schema_parse(NULL, &s), PC_ERR_INVALID);
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(pc_arg_type_name(PC_ARG_TENSOR), "Tensor");
    assert_string_equal(pc_arg_type_name(PC_ARG_SCALAR_TYPE), "ScalarType");
    assert_string_equal(pc_arg_type_name(PC_ARG_TYPE_COUNT), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_norm),
        cmocka_unit_test(test_overload_kwonly_alias),
        cmocka_unit_test(test_lists_and_defaults),
        cmocka_unit_test(test_returns),
        cmocka_unit_test(test_unions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
