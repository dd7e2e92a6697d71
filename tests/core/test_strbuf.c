/* core/strbuf: appends, printf, the fixed buffer, the limit, and the sticky error on injected
 * out-of-memory. */
#include "pc_test.h"

#include "core/alloc.h"
#include "precheck/core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int teardown(void **state)
{
    (void)state;
    pc_alloc_fail_after(-1);
    return 0;
}

static void empty_buffer_is_empty_string(void **state)
{
    (void)state;
    pc_strbuf b = PC_STRBUF_INIT;
    assert_string_equal(pc_strbuf_str(&b), "");
    assert_int_equal(pc_strbuf_len(&b), 0);
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK);
    size_t len = 99;
    char *s = pc_strbuf_finish(&b, &len);
    assert_non_null(s);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
}

static void appends_of_every_kind(void **state)
{
    (void)state;
    pc_strbuf b;
    pc_strbuf_init(&b, NULL, 0, 0);
    pc_strbuf_append(&b, "ab", 2);
    pc_strbuf_appends(&b, "cd");
    pc_strbuf_appends(&b, NULL);
    pc_strbuf_appendc(&b, 'e');
    pc_strbuf_appendn(&b, '-', 3);
    pc_strbuf_printf(&b, "[%d|%s|%.2f]", 42, "x", 1.5);
    assert_string_equal(pc_strbuf_str(&b), "abcde---[42|x|1.50]");
    assert_int_equal(pc_strbuf_len(&b), strlen("abcde---[42|x|1.50]"));
    pc_strbuf_truncate(&b, 3);
    assert_string_equal(pc_strbuf_str(&b), "abc");
    pc_strbuf_truncate(&b, 10); /* longer: nothing */
    assert_string_equal(pc_strbuf_str(&b), "abc");
    char *p = pc_strbuf_extend(&b, 2);
    assert_non_null(p);
    memcpy(p, "XY", 2);
    assert_string_equal(pc_strbuf_str(&b), "abcXY");
    size_t len;
    char *s = pc_strbuf_finish(&b, &len);
    assert_string_equal(s, "abcXY");
    assert_int_equal(len, 5);
    free(s);
    /* finish resets */
    assert_int_equal(pc_strbuf_len(&b), 0);
    assert_string_equal(pc_strbuf_str(&b), "");
}

static void carries_bytes_with_nuls(void **state)
{
    (void)state;
    pc_strbuf b = PC_STRBUF_INIT;
    pc_strbuf_append(&b, "a\0b", 3);
    pc_strbuf_appendc(&b, '\0');
    assert_int_equal(pc_strbuf_len(&b), 4);
    assert_memory_equal(pc_strbuf_str(&b), "a\0b\0", 5);
    pc_strbuf_reset(&b);
}

static void grows_through_many_appends(void **state)
{
    (void)state;
    pc_strbuf b = PC_STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        pc_strbuf_printf(&b, "%05d,", i);
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK);
    assert_int_equal(pc_strbuf_len(&b), 600000);
    const char *s = pc_strbuf_str(&b);
    assert_memory_equal(s, "00000,00001,", 12);
    assert_memory_equal(s + 600000 - 6, "99999,", 6);
    assert_int_equal(s[600000], '\0');
    /* a printf longer than all the room there is, in one go */
    pc_strbuf_reset(&b);
    pc_strbuf_printf(&b, "%5000d", 7);
    assert_int_equal(pc_strbuf_len(&b), 5000);
    assert_int_equal(pc_strbuf_str(&b)[4999], '7');
    pc_strbuf_reset(&b);
}

static void fixed_buffer_first_then_heap(void **state)
{
    (void)state;
    char fixed[16];
    pc_strbuf b;
    pc_strbuf_init(&b, fixed, sizeof fixed, 0);
    pc_strbuf_appends(&b, "0123456789");
    assert_ptr_equal(pc_strbuf_str(&b), fixed); /* still on the stack */
    pc_strbuf_printf(&b, "%s", "abcde");        /* 15 bytes and the NUL: still fits */
    assert_ptr_equal(pc_strbuf_str(&b), fixed);
    pc_strbuf_appendc(&b, '!'); /* the 17th byte moves it to the heap */
    assert_ptr_not_equal(pc_strbuf_str(&b), fixed);
    assert_string_equal(pc_strbuf_str(&b), "0123456789abcde!");
    pc_strbuf_reset(&b); /* frees the heap text; the fixed buffer is used again */
    pc_strbuf_appends(&b, "again");
    assert_ptr_equal(pc_strbuf_str(&b), fixed);
    /* finish copies a text still in the fixed buffer */
    char *s = pc_strbuf_finish(&b, NULL);
    assert_ptr_not_equal(s, fixed);
    assert_string_equal(s, "again");
    free(s);
    /* a printf that does not fit the fixed buffer */
    pc_strbuf_printf(&b, "%s-%s-%s", "twelve bytes", "and more", "to go");
    assert_string_equal(pc_strbuf_str(&b), "twelve bytes-and more-to go");
    pc_strbuf_reset(&b);
}

static void limit_cuts_and_sticks(void **state)
{
    (void)state;
    pc_strbuf b;
    pc_strbuf_init(&b, NULL, 0, 8);
    pc_strbuf_appends(&b, "12345");
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK);
    pc_strbuf_appends(&b, "6789");
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_TOOBIG);
    assert_string_equal(pc_strbuf_str(&b), "12345678");
    pc_strbuf_appendc(&b, 'x'); /* sticks: nothing more */
    pc_strbuf_printf(&b, "%d", 1);
    assert_null(pc_strbuf_extend(&b, 1));
    assert_string_equal(pc_strbuf_str(&b), "12345678");
    char *s = pc_strbuf_finish(&b, NULL); /* the cut text is given */
    assert_string_equal(s, "12345678");
    free(s);
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK); /* finish resets the error */
    /* printf cut at the limit, and exactly at the limit */
    pc_strbuf_printf(&b, "%s", "abcdefghij");
    assert_string_equal(pc_strbuf_str(&b), "abcdefgh");
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_TOOBIG);
    pc_strbuf_reset(&b);
    pc_strbuf_printf(&b, "%s", "abcdefgh");
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK);
    assert_null(pc_strbuf_extend(&b, 1));
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_TOOBIG);
    pc_strbuf_reset(&b);
    /* a fixed buffer larger than the limit still obeys the limit */
    char fixed[64];
    pc_strbuf_init(&b, fixed, sizeof fixed, 4);
    pc_strbuf_printf(&b, "%d", 123456);
    assert_string_equal(pc_strbuf_str(&b), "1234");
    assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_TOOBIG);
    pc_strbuf_reset(&b);
}

/* Every allocation of a growing buffer fails in turn: the error sticks, later appends do nothing,
 * the text stays a valid string, finish gives NULL, and nothing leaks (ASan). */
static void out_of_memory_is_sticky(void **state)
{
    (void)state;
    for (long fail_at = 0; fail_at < 10; fail_at++) {
        pc_strbuf b = PC_STRBUF_INIT;
        pc_alloc_fail_after(fail_at);
        int failed_at = -1;
        for (int i = 0; i < 20000; i++) {
            pc_strbuf_printf(&b, "%d;", i);
            pc_strbuf_appends(&b, "text");
            if (failed_at < 0 && pc_strbuf_error(&b))
                failed_at = i;
        }
        pc_alloc_fail_after(-1);
        assert_true(failed_at >= 0); /* 20000 appends need more than 10 growths from 64 bytes */
        assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_NOMEM);
        size_t len_then = pc_strbuf_len(&b);
        pc_strbuf_appends(&b, "more");
        assert_int_equal(pc_strbuf_len(&b), len_then);
        assert_int_equal(strlen(pc_strbuf_str(&b)), len_then);
        size_t len = 7;
        assert_null(pc_strbuf_finish(&b, &len));
        assert_int_equal(len, 0);
        assert_int_equal(pc_strbuf_error(&b), PC_STRBUF_OK);
    }
    /* the copy out of a fixed buffer failing */
    char fixed[32];
    pc_strbuf b;
    pc_strbuf_init(&b, fixed, sizeof fixed, 0);
    pc_strbuf_appends(&b, "on the stack");
    pc_alloc_fail_after(0);
    assert_null(pc_strbuf_finish(&b, NULL));
    pc_alloc_fail_after(-1);
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(empty_buffer_is_empty_string), T(appends_of_every_kind),
        T(carries_bytes_with_nuls),      T(grows_through_many_appends),
        T(fixed_buffer_first_then_heap), T(limit_cuts_and_sticks),
        T(out_of_memory_is_sticky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
