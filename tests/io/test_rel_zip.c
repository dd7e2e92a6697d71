/* A .pt archive with two members of one name is refused (issue #29): which copy is the data
 * would be a guess (torch's reader and Python's zipfile need not agree), so the read fails
 * with a message naming the file and the member, whichever copy comes first. */
#include "test_pt_support.h"

#include "io/zip.h"
#include "precheck/io/pt.h"

/* The members of a real torch.save file, copied in order, with a second member named like
 * member `twin` (its bytes replaced by a pattern) added before the first one (before) or after
 * the last one; malloc'ed. */
static unsigned char *with_twin(const char *fixture, const char *twin, bool before, size_t *size)
{
    char path[512];
    size_t n;
    unsigned char *src = tf_read_all(tf_fixture(path, sizeof path, fixture), &n);
    pc_zip z;
    assert_int_equal(pc_zip_open(&z, src, n, fixture), PC_OK);
    pc_byte_sink sink = {.fd = -1, .origin = "test"};
    pc_zip_writer w;
    pc_zip_writer_init(&w, &sink);
    unsigned char other[48];
    for (size_t i = 0; i < sizeof other; i++)
        other[i] = (unsigned char)(i * 29 + 7);
    bool added = false;
    for (size_t i = 0; i <= z.count; i++) {
        const pc_zip_entry *e = i < z.count ? &z.entries[i] : NULL;
        if (!added && (before || !e)) {
            assert_int_equal(pc_zip_writer_add(&w, twin, other, sizeof other), PC_OK);
            added = true;
        }
        if (!e)
            break;
        uint64_t at;
        assert_int_equal(pc_zip_entry_data(&z, e, &at), PC_OK);
        char name[256];
        assert_true(e->name_len < sizeof name);
        memcpy(name, e->name, e->name_len);
        name[e->name_len] = '\0';
        assert_int_equal(pc_zip_writer_add(&w, name, src + at, (size_t)e->size), PC_OK);
    }
    assert_int_equal(pc_zip_writer_finish(&w), PC_OK);
    pc_zip_writer_free(&w);
    pc_zip_close(&z);
    free(src);
    return (unsigned char *)pc_strbuf_finish(&sink.mem, size);
}

static void expect_refused(const char *twin, bool before)
{
    size_t n;
    unsigned char *f = with_twin("pt/dtype_float32.pt", twin, before, &n);
    char dir[256], path[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/twin.pt", dir);
    tf_write_all(path, f, n);
    free(f);
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_pt_read_file(path, &t, NULL);
    if (st != PC_ERR_FORMAT)
        fail_msg("%s (%s): status %s, expected FORMAT; message: %s", twin,
                 before ? "first" : "last", pc_status_name(st), pc_error_message());
    assert_true(pc_tensor_is_null(&t));
    char want[800];
    PC_TEST_FMT(want,
                "%s: the zip archive holds 2 members named '%s': which one is the data is "
                "ambiguous, so the file is not read (save the tensor again)",
                path, twin);
    tf_assert_message_has(want);
    remove(path);
    rmdir(dir);
}

static void test_two_members_of_one_name(void **state)
{
    (void)state;
    /* the fixture reads before the twin is added */
    char path[512];
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(
        pc_pt_read_file(tf_fixture(path, sizeof path, "pt/dtype_float32.pt"), &t, NULL), PC_OK);
    pc_tensor_free(&t);
    /* the storage, the pickle and a member the reader never opens; the twin first or last */
    const char *twins[] = {"dtype_float32/data/0", "dtype_float32/data.pkl",
                           "dtype_float32/version"};
    for (size_t i = 0; i < sizeof twins / sizeof *twins; i++) {
        expect_refused(twins[i], true);
        expect_refused(twins[i], false);
    }
}

/* Three copies are counted, and names that differ only in length are not twins. */
static void test_three_copies_and_prefixes(void **state)
{
    (void)state;
    pc_byte_sink sink = {.fd = -1, .origin = "test"};
    pc_zip_writer w;
    pc_zip_writer_init(&w, &sink);
    const char *names[] = {"a/x", "a/x0", "a/x", "a/", "a/x"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_int_equal(pc_zip_writer_add(&w, names[i], "abc", 3), PC_OK);
    assert_int_equal(pc_zip_writer_finish(&w), PC_OK);
    pc_zip_writer_free(&w);
    pc_zip z;
    assert_int_equal(
        pc_zip_open(&z, pc_strbuf_str(&sink.mem), pc_strbuf_len(&sink.mem), "three.pt"),
        PC_ERR_FORMAT);
    tf_assert_message_has("three.pt: the zip archive holds 3 members named 'a/x':");
    pc_strbuf_reset(&sink.mem);

    pc_byte_sink s2 = {.fd = -1, .origin = "test"};
    pc_zip_writer_init(&w, &s2);
    const char *distinct[] = {"a/x", "a/x0", "a/", "a/y"};
    for (size_t i = 0; i < sizeof distinct / sizeof *distinct; i++)
        assert_int_equal(pc_zip_writer_add(&w, distinct[i], "abc", 3), PC_OK);
    assert_int_equal(pc_zip_writer_finish(&w), PC_OK);
    pc_zip_writer_free(&w);
    assert_int_equal(pc_zip_open(&z, pc_strbuf_str(&s2.mem), pc_strbuf_len(&s2.mem), "distinct.pt"),
                     PC_OK);
    assert_int_equal(z.count, 4);
    pc_zip_close(&z);
    pc_strbuf_reset(&s2.mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_members_of_one_name),
        cmocka_unit_test(test_three_copies_and_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
