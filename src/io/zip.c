#include "io/zip.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Record signatures and fixed sizes (PKWARE APPNOTE 4.3). */
#define SIG_LOCAL     0x04034b50u
#define SIG_CENTRAL   0x02014b50u
#define SIG_END       0x06054b50u
#define SIG_END64     0x06064b50u
#define SIG_LOCATOR64 0x07064b50u

#define LOCAL_SIZE     30
#define CENTRAL_SIZE   46
#define END_SIZE       22
#define END64_SIZE     56
#define LOCATOR64_SIZE 20
#define MAX_COMMENT    65535

#define EXTRA_ZIP64   0x0001
#define EXTRA_PADDING 0x4246 /* 'F' 'B': torch's alignment padding */

#define FLAG_ENCRYPTED 0x0001
#define FLAG_UTF8      0x0800

static const char *method_name(unsigned method)
{
    switch (method) {
    case 0:
        return "stored";
    case 8:
        return "deflate";
    case 9:
        return "deflate64";
    case 12:
        return "bzip2";
    case 14:
        return "lzma";
    case 93:
        return "zstd";
    case 95:
        return "xz";
    default:
        return "unknown";
    }
}

void pc_zip_entry_label(const pc_zip_entry *entry, char *dst, size_t size)
{
    if (size < 3) {
        if (size)
            dst[0] = '\0';
        return;
    }
    size_t k = 0;
    dst[k++] = '\'';
    for (size_t i = 0; i < entry->name_len && k + 2 < size; i++) {
        unsigned char c = (unsigned char)entry->name[i];
        dst[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    dst[k++] = '\'';
    dst[k] = '\0';
}

/* ---------------------------------------------------------------------------------------- */
/* Reader                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* The end records, resolved: where the central directory is, how long, how many entries, and
 * how far every recorded offset must be shifted to point into our bytes. */
typedef struct zip_end {
    uint64_t count;
    uint64_t cd_size;
    uint64_t cd_start; /* in our bytes */
    uint64_t delta;    /* our position - recorded offset, modulo 2^64 */
} zip_end;

static pc_status find_end(const pc_zip *zip, zip_end *end)
{
    const unsigned char *d = zip->data;
    size_t size = zip->size;
    if (size < END_SIZE)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: truncated zip archive: %zu bytes cannot hold its end record",
                            zip->origin, size);
    size_t lowest = size - END_SIZE > MAX_COMMENT ? size - END_SIZE - MAX_COMMENT : 0;
    size_t pos = size - END_SIZE;
    bool found = false;
    for (;; pos--) {
        if (pc_le32(d + pos) == SIG_END && pos + END_SIZE + pc_le16(d + pos + 20) <= size) {
            found = true;
            break;
        }
        if (pos == lowest)
            break;
    }
    if (!found)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: no zip end-of-central-directory record: the file is truncated "
                            "or not a zip archive",
                            zip->origin);
    const unsigned char *e = d + pos;
    if (pc_le16(e + 4) != 0 || pc_le16(e + 6) != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: multi-disk zip archives are not supported",
                            zip->origin);
    uint64_t count = pc_le16(e + 10);
    uint64_t cd_size = pc_le32(e + 12);
    uint64_t cd_offset = pc_le32(e + 16);
    bool needs64 = count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF;
    uint64_t end_pos = pos; /* the central directory ends where the end records begin */

    if (pos >= LOCATOR64_SIZE && pc_le32(d + pos - LOCATOR64_SIZE) == SIG_LOCATOR64) {
        const unsigned char *loc = d + pos - LOCATOR64_SIZE;
        uint64_t recorded = pc_le64(loc + 8);
        /* Where the zip64 end record should be: at its recorded offset, or (with bytes before
         * the archive) right before the locator, where every writer puts it. */
        uint64_t at = UINT64_MAX;
        uint64_t before = pos - LOCATOR64_SIZE;
        if (before >= END64_SIZE) {
            if (recorded <= before - END64_SIZE && pc_le32(d + recorded) == SIG_END64)
                at = recorded;
            else if (pc_le32(d + before - END64_SIZE) == SIG_END64)
                at = before - END64_SIZE;
        }
        if (at != UINT64_MAX) {
            const unsigned char *z = d + at;
            uint64_t rec_size = pc_le64(z + 4);
            if (rec_size < END64_SIZE - 12 || rec_size > before - at - 12)
                return pc_error_set(PC_ERR_FORMAT,
                                    "%s: zip64 end record claims %llu bytes, more than there are",
                                    zip->origin, (unsigned long long)rec_size);
            if (pc_le32(z + 16) != 0 || pc_le32(z + 20) != 0 || pc_le32(loc + 4) != 0)
                return pc_error_set(PC_ERR_UNSUPPORTED,
                                    "%s: multi-disk zip archives are not supported", zip->origin);
            count = pc_le64(z + 32);
            cd_size = pc_le64(z + 40);
            cd_offset = pc_le64(z + 48);
            end_pos = at;
            needs64 = false;
        }
    }
    if (needs64)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: the zip end record needs zip64 values but the zip64 end record "
                            "is missing or damaged",
                            zip->origin);
    if (cd_size > end_pos)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip central directory of %llu bytes does not fit before its end "
                            "record at offset %llu",
                            zip->origin, (unsigned long long)cd_size, (unsigned long long)end_pos);
    /* The directory normally is at its recorded offset and ends at the end record; bytes
     * before the archive shift both by the same amount. */
    uint64_t cd_start = end_pos - cd_size;
    if (cd_offset <= end_pos - cd_size && (cd_size < 4 || pc_le32(d + cd_offset) == SIG_CENTRAL))
        cd_start = cd_offset;
    end->count = count;
    end->cd_size = cd_size;
    end->cd_start = cd_start;
    end->delta = cd_start - cd_offset;
    return PC_OK;
}

/* Reads the zip64 extra field of a central entry for the values that were 0xFFFFFFFF. */
static pc_status read_zip64_extra(const pc_zip *zip, const unsigned char *extra, size_t len,
                                  pc_zip_entry *e, bool need_size, bool need_comp, bool need_offset,
                                  size_t index)
{
    size_t p = 0;
    while (p + 4 <= len) {
        unsigned id = pc_le16(extra + p);
        size_t n = pc_le16(extra + p + 2);
        if (n > len - p - 4)
            break;
        if (id == EXTRA_ZIP64) {
            const unsigned char *f = extra + p + 4;
            size_t have = n, at = 0;
            if (need_size) {
                if (have - at < 8)
                    goto short_field;
                e->size = pc_le64(f + at);
                at += 8;
            }
            if (need_comp) {
                if (have - at < 8)
                    goto short_field;
                e->comp_size = pc_le64(f + at);
                at += 8;
            }
            if (need_offset) {
                if (have - at < 8)
                    goto short_field;
                e->header_offset = pc_le64(f + at);
            }
            return PC_OK;
        }
        p += 4 + n;
    }
    if (!need_size && !need_comp && !need_offset)
        return PC_OK;
short_field:
    return pc_error_set(PC_ERR_FORMAT,
                        "%s: zip central directory entry %zu needs a zip64 extra field that is "
                        "missing or too short",
                        zip->origin, index);
}

static bool same_name(const pc_zip_entry *x, const pc_zip_entry *y)
{
    return x->name_len == y->name_len && memcmp(x->name, y->name, x->name_len) == 0;
}

static int entry_order(const void *a, const void *b)
{
    const pc_zip_entry *x = *(const pc_zip_entry *const *)a, *y = *(const pc_zip_entry *const *)b;
    if (x->name_len != y->name_len)
        return x->name_len < y->name_len ? -1 : 1;
    return memcmp(x->name, y->name, x->name_len);
}

/* Two members of one name: torch's reader and Python's zipfile need not take the same one, so
 * which bytes are the data is ambiguous; the archive is refused, naming the member. */
static pc_status check_unique_names(const pc_zip *zip, const pc_zip_entry *entries, size_t n)
{
    if (n < 2)
        return PC_OK;
    const pc_zip_entry **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory listing %zu zip entries", zip->origin,
                            n);
    for (size_t i = 0; i < n; i++)
        sorted[i] = &entries[i];
    qsort(sorted, n, sizeof *sorted, entry_order);
    pc_status st = PC_OK;
    for (size_t i = 1; i < n; i++) {
        if (!same_name(sorted[i - 1], sorted[i]))
            continue;
        size_t j = i + 1;
        while (j < n && same_name(sorted[j], sorted[i]))
            j++;
        char label[160];
        pc_zip_entry_label(sorted[i], label, sizeof label);
        st = pc_error_set(PC_ERR_FORMAT,
                          "%s: the zip archive holds %zu members named %s: which one is the "
                          "data is ambiguous, so the file is not read (save the tensor again)",
                          zip->origin, j - i + 1, label);
        break;
    }
    free(sorted);
    return st;
}

pc_status pc_zip_open(pc_zip *zip, const void *data, size_t size, const char *origin)
{
    memset(zip, 0, sizeof *zip);
    zip->data = data;
    zip->size = size;
    zip->origin = origin ? origin : "<memory>";
    zip_end end = {0};
    pc_status st = find_end(zip, &end);
    if (st != PC_OK)
        return st;
    if (end.count > end.cd_size / CENTRAL_SIZE)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip end record claims %llu entries, but the central directory "
                            "has room for %llu",
                            zip->origin, (unsigned long long)end.count,
                            (unsigned long long)(end.cd_size / CENTRAL_SIZE));
    if (end.count == 0)
        return pc_error_set(PC_ERR_FORMAT, "%s: the zip archive has no entries", zip->origin);
    pc_zip_entry *entries = calloc((size_t)end.count, sizeof *entries);
    if (!entries)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory listing %llu zip entries", zip->origin,
                            (unsigned long long)end.count);
    const unsigned char *cd = zip->data + end.cd_start;
    size_t left = (size_t)end.cd_size, p = 0;
    for (size_t i = 0; i < end.count; i++) {
        if (left - p < CENTRAL_SIZE || pc_le32(cd + p) != SIG_CENTRAL) {
            free(entries);
            return pc_error_set(PC_ERR_FORMAT,
                                "%s: zip central directory entry %zu at offset %llu is damaged "
                                "(no signature PK\\1\\2)",
                                zip->origin, i, (unsigned long long)(end.cd_start + p));
        }
        const unsigned char *c = cd + p;
        size_t name_len = pc_le16(c + 28), extra_len = pc_le16(c + 30),
               comment_len = pc_le16(c + 32);
        if (name_len + extra_len + comment_len > left - p - CENTRAL_SIZE) {
            free(entries);
            return pc_error_set(PC_ERR_FORMAT,
                                "%s: zip central directory entry %zu runs past the directory's "
                                "end",
                                zip->origin, i);
        }
        pc_zip_entry *e = &entries[i];
        e->name = (const char *)c + CENTRAL_SIZE;
        e->name_len = name_len;
        e->flags = pc_le16(c + 8);
        e->method = pc_le16(c + 10);
        e->crc = pc_le32(c + 16);
        e->comp_size = pc_le32(c + 20);
        e->size = pc_le32(c + 24);
        e->header_offset = pc_le32(c + 42);
        if (pc_le16(c + 34) != 0 && pc_le16(c + 34) != 0xFFFF) {
            free(entries);
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: multi-disk zip archives are not supported",
                                zip->origin);
        }
        st = read_zip64_extra(zip, c + CENTRAL_SIZE + name_len, extra_len, e, e->size == 0xFFFFFFFF,
                              e->comp_size == 0xFFFFFFFF, e->header_offset == 0xFFFFFFFF, i);
        if (st != PC_OK) {
            free(entries);
            return st;
        }
        /* Shift into our bytes (wrapping: an offset that leaves them, either way, is caught when
         * the entry is read). */
        e->header_offset += end.delta;
        p += CENTRAL_SIZE + name_len + extra_len + comment_len;
    }
    st = check_unique_names(zip, entries, (size_t)end.count);
    if (st != PC_OK) {
        free(entries);
        return st;
    }
    zip->entries = entries;
    zip->count = (size_t)end.count;
    return PC_OK;
}

void pc_zip_close(pc_zip *zip)
{
    free(zip->entries);
    zip->entries = NULL;
    zip->count = 0;
}

const pc_zip_entry *pc_zip_find(const pc_zip *zip, const char *name, size_t len)
{
    for (size_t i = 0; i < zip->count; i++)
        if (zip->entries[i].name_len == len && memcmp(zip->entries[i].name, name, len) == 0)
            return &zip->entries[i];
    return NULL;
}

pc_status pc_zip_entry_data(const pc_zip *zip, const pc_zip_entry *entry, uint64_t *offset)
{
    char label[128];
    pc_zip_entry_label(entry, label, sizeof label);
    if (entry->flags & FLAG_ENCRYPTED)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: zip member %s is encrypted", zip->origin,
                            label);
    if (entry->method != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: zip member %s is compressed (method %u, %s); torch.save stores "
                            "members uncompressed and precheck reads only stored members",
                            zip->origin, label, entry->method, method_name(entry->method));
    if (entry->comp_size != entry->size)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: stored zip member %s has a compressed size of %llu bytes but a "
                            "size of %llu",
                            zip->origin, label, (unsigned long long)entry->comp_size,
                            (unsigned long long)entry->size);
    uint64_t h = entry->header_offset;
    if (h > zip->size || zip->size - h < LOCAL_SIZE || pc_le32(zip->data + h) != SIG_LOCAL)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip member %s: no local header at offset %llu (damaged or "
                            "truncated archive)",
                            zip->origin, label, (unsigned long long)h);
    const unsigned char *l = zip->data + h;
    uint64_t name_len = pc_le16(l + 26), extra_len = pc_le16(l + 28);
    if (pc_le16(l + 8) != 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip member %s: the local header says method %u, the central "
                            "directory says stored",
                            zip->origin, label, pc_le16(l + 8));
    uint64_t start = h + LOCAL_SIZE + name_len + extra_len;
    if (start > zip->size || name_len != entry->name_len ||
        memcmp(l + LOCAL_SIZE, entry->name, entry->name_len) != 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip member %s: its local header at offset %llu does not match "
                            "the central directory",
                            zip->origin, label, (unsigned long long)h);
    if (entry->size > zip->size - start)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: zip member %s of %llu bytes at offset %llu runs past the end of "
                            "the file (%zu bytes): the file is truncated",
                            zip->origin, label, (unsigned long long)entry->size,
                            (unsigned long long)start, zip->size);
    *offset = start;
    return PC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* CRC-32, slicing by 8 bytes                                                               */
/* ---------------------------------------------------------------------------------------- */

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
}

uint32_t pc_crc32(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&crc_once, crc_init);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (n >= 8) {
        uint32_t lo = c ^ pc_le32(p), hi = pc_le32(p + 4);
        c = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
            crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xFF] ^
            crc_table[2][(hi >> 8) & 0xFF] ^ crc_table[1][(hi >> 16) & 0xFF] ^
            crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = crc_table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

/* ---------------------------------------------------------------------------------------- */
/* Writer                                                                                   */
/* ---------------------------------------------------------------------------------------- */

#define VERSION_PLAIN 20 /* 2.0: stored entries, directories */
#define VERSION_ZIP64 45 /* 4.5: zip64 */
#define DOS_DATE_1980 0x0021

void pc_zip_writer_init(pc_zip_writer *w, pc_byte_sink *sink)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->zip64_limit = 0xFFFFFFFF;
}

void pc_zip_writer_free(pc_zip_writer *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->entries[i].name);
    free(w->entries);
    w->entries = NULL;
    w->count = w->cap = 0;
}

pc_status pc_zip_writer_add(pc_zip_writer *w, const char *name, const void *data, size_t size)
{
    pc_byte_sink *s = w->sink;
    size_t name_len = strlen(name);
    if (name_len > 0xFFFF)
        return pc_error_set(PC_ERR_INVALID, "%s: zip member name of %zu bytes is too long",
                            s->origin, name_len);
    if (w->count == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        pc_zip_written *ne = realloc(w->entries, cap * sizeof *ne);
        if (!ne)
            return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", s->origin);
        w->entries = ne;
        w->cap = cap;
    }
    char *copy = malloc(name_len + 1);
    if (!copy)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", s->origin);
    memcpy(copy, name, name_len + 1);

    uint64_t offset = s->offset;
    bool big = (uint64_t)size >= w->zip64_limit;
    uint32_t crc = pc_crc32(0, data, size);
    size_t z64_len = big ? 4 + 16 : 0;
    /* Pad with an 'FB' extra record so that the data starts on an aligned offset; the record
     * needs 4 bytes of header, so the padding is 4 + (whatever reaches the next boundary). */
    uint64_t base = offset + LOCAL_SIZE + name_len + z64_len + 4;
    size_t pad = (size_t)((PC_ZIP_ALIGN - base % PC_ZIP_ALIGN) % PC_ZIP_ALIGN);
    size_t extra_len = z64_len + 4 + pad;

    unsigned char h[LOCAL_SIZE + 4 + 16];
    memset(h, 0, sizeof h);
    pc_put_le32(h, SIG_LOCAL);
    pc_put_le16(h + 4, big ? VERSION_ZIP64 : VERSION_PLAIN);
    pc_put_le16(h + 6, FLAG_UTF8);
    pc_put_le16(h + 8, 0);
    pc_put_le16(h + 10, 0);
    pc_put_le16(h + 12, DOS_DATE_1980);
    pc_put_le32(h + 14, crc);
    pc_put_le32(h + 18, big ? 0xFFFFFFFF : (uint32_t)size);
    pc_put_le32(h + 22, big ? 0xFFFFFFFF : (uint32_t)size);
    pc_put_le16(h + 26, (uint16_t)name_len);
    pc_put_le16(h + 28, (uint16_t)extra_len);
    pc_status st = pc_byte_sink_write(s, h, LOCAL_SIZE);
    if (st == PC_OK)
        st = pc_byte_sink_write(s, name, name_len);
    if (st == PC_OK && big) {
        unsigned char x[20];
        pc_put_le16(x, EXTRA_ZIP64);
        pc_put_le16(x + 2, 16);
        pc_put_le64(x + 4, size);
        pc_put_le64(x + 12, size);
        st = pc_byte_sink_write(s, x, sizeof x);
    }
    if (st == PC_OK) {
        unsigned char fb[4 + PC_ZIP_ALIGN];
        pc_put_le16(fb, EXTRA_PADDING);
        pc_put_le16(fb + 2, (uint16_t)pad);
        memset(fb + 4, 'Z', pad);
        st = pc_byte_sink_write(s, fb, 4 + pad);
    }
    if (st == PC_OK)
        st = pc_byte_sink_write(s, data, size);
    if (st != PC_OK) {
        free(copy);
        return st;
    }
    w->entries[w->count++] =
        (pc_zip_written){.name = copy, .crc = crc, .size = size, .header_offset = offset};
    return PC_OK;
}

pc_status pc_zip_writer_finish(pc_zip_writer *w)
{
    pc_byte_sink *s = w->sink;
    uint64_t cd_offset = s->offset;
    pc_status st = PC_OK;
    for (size_t i = 0; i < w->count && st == PC_OK; i++) {
        const pc_zip_written *e = &w->entries[i];
        size_t name_len = strlen(e->name);
        bool big_size = e->size >= w->zip64_limit;
        bool big_offset = e->header_offset >= w->zip64_limit;
        size_t nfields = (big_size ? 2u : 0u) + (big_offset ? 1u : 0u);
        size_t extra_len = nfields ? 4 + 8 * nfields : 0;
        unsigned char c[CENTRAL_SIZE + 4 + 24];
        memset(c, 0, sizeof c);
        unsigned version = nfields ? VERSION_ZIP64 : VERSION_PLAIN;
        pc_put_le32(c, SIG_CENTRAL);
        pc_put_le16(c + 4, (uint16_t)version);
        pc_put_le16(c + 6, (uint16_t)version);
        pc_put_le16(c + 8, FLAG_UTF8);
        pc_put_le16(c + 14, DOS_DATE_1980);
        pc_put_le32(c + 16, e->crc);
        pc_put_le32(c + 20, big_size ? 0xFFFFFFFF : (uint32_t)e->size);
        pc_put_le32(c + 24, big_size ? 0xFFFFFFFF : (uint32_t)e->size);
        pc_put_le16(c + 28, (uint16_t)name_len);
        pc_put_le16(c + 30, (uint16_t)extra_len);
        pc_put_le32(c + 42, big_offset ? 0xFFFFFFFF : (uint32_t)e->header_offset);
        st = pc_byte_sink_write(s, c, CENTRAL_SIZE);
        if (st == PC_OK)
            st = pc_byte_sink_write(s, e->name, name_len);
        if (st == PC_OK && nfields) {
            unsigned char *x = c + CENTRAL_SIZE;
            size_t k = 4;
            pc_put_le16(x, EXTRA_ZIP64);
            pc_put_le16(x + 2, (uint16_t)(8 * nfields));
            if (big_size) {
                pc_put_le64(x + k, e->size);
                pc_put_le64(x + k + 8, e->size);
                k += 16;
            }
            if (big_offset)
                pc_put_le64(x + k, e->header_offset);
            st = pc_byte_sink_write(s, x, extra_len);
        }
    }
    if (st != PC_OK)
        return st;
    uint64_t cd_size = s->offset - cd_offset;
    uint64_t end64_offset = s->offset;
    unsigned char r[END64_SIZE + LOCATOR64_SIZE + END_SIZE];
    memset(r, 0, sizeof r);
    unsigned char *z = r, *loc = r + END64_SIZE, *e = loc + LOCATOR64_SIZE;
    pc_put_le32(z, SIG_END64);
    pc_put_le64(z + 4, END64_SIZE - 12);
    pc_put_le16(z + 12, VERSION_ZIP64);
    pc_put_le16(z + 14, VERSION_ZIP64);
    pc_put_le64(z + 24, w->count);
    pc_put_le64(z + 32, w->count);
    pc_put_le64(z + 40, cd_size);
    pc_put_le64(z + 48, cd_offset);
    pc_put_le32(loc, SIG_LOCATOR64);
    pc_put_le64(loc + 8, end64_offset);
    pc_put_le32(loc + 16, 1);
    pc_put_le32(e, SIG_END);
    uint16_t count16 = w->count >= 0xFFFF ? 0xFFFF : (uint16_t)w->count;
    pc_put_le16(e + 8, count16);
    pc_put_le16(e + 10, count16);
    pc_put_le32(e + 12, cd_size >= w->zip64_limit ? 0xFFFFFFFF : (uint32_t)cd_size);
    pc_put_le32(e + 16, cd_offset >= w->zip64_limit ? 0xFFFFFFFF : (uint32_t)cd_offset);
    return pc_byte_sink_write(s, r, sizeof r);
}
