/*
 * .pt files: what torch.save writes for one tensor (a zip archive holding a pickle and the
 * storage bytes; docs/tensor-files.md), read into a pc_tensor and written from one.
 *
 * Reading. The file is mapped, the zip's central directory located (zip64 and bytes before
 * the archive included), "<archive>/data.pkl" unpickled by a small machine that runs nothing,
 * and the result must be one tensor: torch._utils._rebuild_tensor_v2 (or _rebuild_tensor,
 * _rebuild_parameter, _rebuild_from_type_v2 around one) or torch_npu's _rebuild_npu_tensor,
 * on a storage named by a persistent id ('storage', torch.<Kind>Storage, key, location, numel)
 * whose bytes are the stored member "<archive>/data/<key>". Offset, shape and strides are
 * honoured as written: the tensor may be a non-contiguous view of a larger storage. A
 * `byteorder` record of "big" makes the data be converted to the machine's little-endian.
 * Every size in the file is checked against the file before anything is allocated.
 *
 * From a file, the storage is the file's mapped bytes themselves when they are aligned for
 * the dtype (torch aligns them to 64 bytes): no copy, the mapping lives as long as the
 * storage, and it is private, so writing to the tensor never changes the file. Otherwise
 * (misaligned, big-endian) the storage is a copy. From a memory buffer it is always a copy.
 *
 * Writing produces what torch.save(t.contiguous()) writes (pickle protocol 2, stored members
 * aligned to 64 bytes, zip64 end records), which torch.load (1.6 and later) reads back with the
 * same dtype, shape and bits. Members: data.pkl, byteorder ("little"), data/0, version ("3").
 * The archive name inside is the file name without its last extension, as torch uses.
 *
 * Ownership: *out receives a tensor with its own storage reference (see core/tensor.h: *out
 * is written only on success and must not hold a tensor). Buffers returned by
 * pc_pt_write_buffer are malloc'ed and the caller free()s them.
 *
 * Errors, each with a message naming the file (or origin) and what is wrong in it:
 * PC_ERR_NOT_FOUND / PC_ERR_IO (the file), PC_ERR_FORMAT (not a zip archive, truncated or
 * damaged archive or pickle, missing records, a storage whose size differs from its member, a
 * view outside its storage), PC_ERR_UNSUPPORTED (the legacy pre-1.6 format, compressed or
 * encrypted members, objects other than one tensor, quantized/sparse tensors, unknown storage
 * classes), PC_ERR_RANGE / PC_ERR_INVALID (shapes and strides, as pc_tensor_check_shape says),
 * PC_ERR_NOMEM.
 */
#ifndef PC_IO_PT_H
#define PC_IO_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"
#include "precheck/core/tensor.h"

/* What else a .pt file said about its tensor. */
typedef struct pc_pt_info {
    bool requires_grad;
    bool big_endian;       /* the byteorder record said "big"; the data were converted */
    bool mapped;           /* the storage is the file's mapped bytes (no copy was made) */
    int npu_format;        /* torch_npu's format argument (2 = ND, 29 = FRACTAL_NZ, ...); -1 none */
    char location[32];     /* the storage's location tag: "cpu", "cuda:0", "npu:0" (cut to fit) */
    int64_t storage_numel; /* elements of the storage the tensor is a view of */
} pc_pt_info;

/* Reads the tensor of the .pt file at path. info may be NULL. */
pc_status pc_pt_read_file(const char *path, pc_tensor *out, pc_pt_info *info);

/* The same from size bytes in memory (copied; data may go away afterwards). origin names the
 * bytes in messages (NULL: "<memory>"). */
pc_status pc_pt_read_buffer(const void *data, size_t size, const char *origin, pc_tensor *out,
                            pc_pt_info *info);

/* Writes t (any layout; a non-contiguous t is written as its contiguous copy) to path as
 * io/file_out.h writes a whole file, with its flags (PC_FILE_OUT_*): a link at path is refused,
 * an existing file is replaced only with PC_FILE_OUT_REPLACE; mode PC_PATH_FILE_MODE; on
 * failure nothing is left under path nor a temporary beside it. */
pc_status pc_pt_write_file(const char *path, const pc_tensor *t, unsigned flags);

/* The same into a new malloc'ed buffer (*data, *size); archive is the name prefix of the
 * members (NULL: "archive", what torch uses when saving to a file object). */
pc_status pc_pt_write_buffer(const pc_tensor *t, const char *archive, void **data, size_t *size);

#endif
