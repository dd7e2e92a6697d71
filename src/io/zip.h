/*
 * Private to io/: the zip container of .pt files, read over bytes already in memory (a mapped
 * file or a caller's buffer) and written to a sink.
 *
 * Reader. pc_zip_open() finds the end-of-central-directory record (and the zip64 records when
 * present), checks that the central directory lies inside the bytes, and lists its entries;
 * entry names point into the caller's bytes, which must outlive the pc_zip. Nothing is read
 * from a local header until pc_zip_entry_data() asks for that entry, so damage in a member
 * nobody uses does not fail the file; but two members of one name fail it (which one holds
 * the data would be a guess). Bytes before the archive (a prefix, as a self-extracting
 * stub has) are allowed: offsets are corrected by where the central directory really is.
 * Only stored (method 0), unencrypted members can be read; others are PC_ERR_UNSUPPORTED with
 * the method's name. CRCs are not checked (torch does not check them either, and a CRC over a
 * multi-GB tensor would cost more than reading it).
 *
 * Writer. pc_zip_writer_add() writes one stored member, its data starting at a multiple of
 * PC_ZIP_ALIGN from the start of the archive (padding in an extra field, as torch does), with
 * CRC and sizes in the local header (no data descriptor). pc_zip_writer_finish() writes the
 * central directory, a zip64 end record and locator, and the classic end record. zip64 extra
 * fields appear for values at or above zip64_limit (0xFFFFFFFF; tests lower it).
 *
 * Errors: PC_ERR_FORMAT for a malformed archive, PC_ERR_UNSUPPORTED for compressed, encrypted
 * or multi-disk archives, PC_ERR_NOMEM; messages start with the origin given to open.
 */
#ifndef PC_IO_ZIP_H
#define PC_IO_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "precheck/io/checksum.h"

#include "io/tensor_file.h"
#include "precheck/core/status.h"

#define PC_ZIP_ALIGN 64

typedef struct pc_zip_entry {
    const char *name; /* into the archive's bytes; not NUL-terminated */
    size_t name_len;
    uint16_t flags;
    uint16_t method;
    uint32_t crc;
    uint64_t comp_size;
    uint64_t size;
    uint64_t header_offset; /* of the local header, in the caller's bytes */
} pc_zip_entry;

typedef struct pc_zip {
    const unsigned char *data;
    size_t size;
    const char *origin; /* for messages; not owned */
    pc_zip_entry *entries;
    size_t count;
} pc_zip;

pc_status pc_zip_open(pc_zip *zip, const void *data, size_t size, const char *origin);
void pc_zip_close(pc_zip *zip);

/* The entry named exactly name (len bytes); NULL when there is none (names are unique:
 * pc_zip_open() refuses an archive with two members of one name, PC_ERR_FORMAT). */
const pc_zip_entry *pc_zip_find(const pc_zip *zip, const char *name, size_t len);

/* Where entry's data begins in the archive's bytes (*offset) after checking its local header,
 * that it is stored, and that all its bytes lie inside the archive. */
pc_status pc_zip_entry_data(const pc_zip *zip, const pc_zip_entry *entry, uint64_t *offset);

/* "'<name>'" for messages: copies at most size - 1 chars of the name, quoted. */
void pc_zip_entry_label(const pc_zip_entry *entry, char *dst, size_t size);

/* ---- writer ---- */

typedef struct pc_zip_written {
    char *name;
    uint32_t crc;
    uint64_t size;
    uint64_t header_offset;
} pc_zip_written;

typedef struct pc_zip_writer {
    pc_byte_sink *sink;
    uint64_t zip64_limit;
    pc_zip_written *entries;
    size_t count, cap;
} pc_zip_writer;

void pc_zip_writer_init(pc_zip_writer *w, pc_byte_sink *sink);
pc_status pc_zip_writer_add(pc_zip_writer *w, const char *name, const void *data, size_t size);
pc_status pc_zip_writer_finish(pc_zip_writer *w);
void pc_zip_writer_free(pc_zip_writer *w);

/* pc_crc32: precheck/io/checksum.h */

#endif
