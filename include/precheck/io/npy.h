/*
 * .npy files (numpy's format, versions 1.0, 2.0 and 3.0), read into a pc_tensor and written
 * from one. run_ut accepts .npy wherever a dump names a tensor file (MindSpore and very old
 * dumps use them).
 *
 * Reading. The header (a Python dict literal with 'descr', 'fortran_order' and 'shape', and
 * nothing else) is parsed without evaluating anything. descr may be any dtype of the dtype
 * table that has a .npy descr (bool, uint8, int8-int64, float16/32/64, complex64/128), in
 * either byte order ('<', '>', '=' and '|' for native and byte-sized types); big-endian data
 * are converted to little-endian. A fortran_order array is returned as the view numpy gives:
 * the file's shape with column-major strides (not contiguous; pc_tensor_contiguous() makes
 * it so). The shape is checked against the file's size before anything is allocated; bytes
 * after the data are ignored, as numpy does.
 *
 * From a file, the storage is the file's mapped bytes when they are aligned for the dtype
 * (numpy aligns its data to 64 bytes) and little-endian: no copy, a private mapping, so
 * writing to the tensor never changes the file. Otherwise, and from a memory buffer, a copy.
 *
 * Writing produces the bytes np.save writes for a C-contiguous array (version 1.0, or 2.0
 * when the header needs it; numpy's header text and padding), little-endian; a non-contiguous
 * tensor is written as its contiguous copy. dtypes numpy lacks (bfloat16, the float8s) are
 * PC_ERR_UNSUPPORTED.
 *
 * Ownership: as in io/pt.h (*out holds its own storage reference; buffers from
 * pc_npy_write_buffer are malloc'ed, the caller free()s them).
 *
 * Errors, each naming the file (or origin): PC_ERR_NOT_FOUND / PC_ERR_IO, PC_ERR_FORMAT (bad
 * magic, truncated header or data, a header that is not the dict numpy writes),
 * PC_ERR_UNSUPPORTED (other versions, structured or object dtypes, dtypes precheck lacks),
 * PC_ERR_RANGE / PC_ERR_INVALID (shapes, as pc_tensor_check_shape says), PC_ERR_NOMEM.
 */
#ifndef PC_IO_NPY_H
#define PC_IO_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"
#include "precheck/core/tensor.h"

typedef struct pc_npy_info {
    int version_major; /* 1, 2 or 3 */
    int version_minor; /* 0 */
    bool fortran_order;
    bool big_endian; /* the data were big-endian and have been converted */
    bool mapped;     /* the storage is the file's mapped bytes (no copy was made) */
} pc_npy_info;

/* Reads the array of the .npy file at path. info may be NULL. */
pc_status pc_npy_read_file(const char *path, pc_tensor *out, pc_npy_info *info);

/* The same from size bytes in memory (copied). origin names them in messages (NULL:
 * "<memory>"). */
pc_status pc_npy_read_buffer(const void *data, size_t size, const char *origin, pc_tensor *out,
                             pc_npy_info *info);

/* Writes t to path as io/file_out.h writes a whole file, with its flags (PC_FILE_OUT_*): a
 * link at path is refused, an existing file is replaced only with PC_FILE_OUT_REPLACE; mode
 * PC_PATH_FILE_MODE; no partial file is left on failure. */
pc_status pc_npy_write_file(const char *path, const pc_tensor *t, unsigned flags);

/* The same into a new malloc'ed buffer. */
pc_status pc_npy_write_buffer(const pc_tensor *t, void **data, size_t *size);

#endif
