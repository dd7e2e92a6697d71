/*
 * pc_tensor: a strided view (dtype, shape, element strides, element offset) of a shared,
 * reference-counted block of bytes (pc_storage).
 *
 * OWNERSHIP, the one rule:
 *   A pc_storage is reference counted and freed when its last reference is dropped; then its
 *   release callback, if it has one, is called exactly once. A pc_tensor is a plain struct that
 *   the caller owns by value (a local, an array element, a field); a pc_tensor that a function
 *   here produced holds one reference to its storage, and pc_tensor_free() drops it. Views
 *   share the storage and hold their own reference: writes through a view are seen through the
 *   base and the other way round, and the storage lives while any tensor on it does.
 *   Copying the struct (b = a) takes no reference: it moves the tensor, and only one of the
 *   two may be freed. pc_tensor_share() makes a second owner.
 *
 * Why tensors are values and not heap objects: making a view (transpose, select, reshape, ...)
 * is then a struct write and an atomic increment, with no allocation and no failure path; the
 * only allocation is the storage. A tensor is 280 bytes, cheap to keep in arrays of arguments.
 *
 * Output parameters: every function that produces a tensor writes *out only on success; on
 * failure *out is left as it was. *out is overwritten without being freed, so it must not hold
 * a tensor, except that out may be the same pointer as the source tensor: then the result
 * replaces the source (whose reference it takes over), and on failure the source is unchanged.
 * Initialise tensors that a cleanup path frees with PC_TENSOR_NULL (or {0}); freeing the null
 * tensor does nothing, and pc_tensor_free leaves the null tensor behind, so a second free is
 * harmless.
 *
 * Errors: functions that can fail return a pc_status and set the thread's message naming the
 * shape and dtype. A shape is refused when it has a negative dimension (PC_ERR_INVALID), more
 * than PC_TENSOR_MAX_DIMS dimensions (PC_ERR_UNSUPPORTED), or when its element count, its byte
 * size or the product of its non-zero dimensions overflows 64 bits or its byte size exceeds
 * PC_TENSOR_MAX_BYTES (PC_ERR_RANGE). Allocation failures give PC_ERR_NOMEM. Passing the null
 * tensor where a tensor is needed gives PC_ERR_INVALID. Element access by an out-of-range
 * index (pc_tensor_get/set) is a bug of the caller and aborts with a message.
 *
 * Layout: strides and offset count elements, not bytes. Strides are >= 0 (0 for broadcast
 * views); negative strides are refused (PC_ERR_UNSUPPORTED). Every view is checked when it is
 * made: all elements it can reach lie inside the storage. 0-dim tensors (rank 0, one element)
 * and zero-size tensors (a dimension of 0, no elements, any allocation of 0 bytes included)
 * work with every function.
 *
 * Threads: reference counts are atomic, so tensors that share a storage may be made and freed
 * on different threads. One pc_tensor struct must not be changed by two threads at once, and
 * the data itself has no locks.
 */
#ifndef PC_CORE_TENSOR_H
#define PC_CORE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/dtype.h"
#include "precheck/core/status.h"

/* torch allows 64 dimensions (CUDA kernels 25); dumps of real models stay far below 16. */
#define PC_TENSOR_MAX_DIMS 16
/* Largest byte size of a tensor (and of its element count x element size for views): 256 TiB,
 * above any real machine's memory and far from every 64-bit overflow. */
#define PC_TENSOR_MAX_BYTES ((int64_t)1 << 48)
/* Alignment in bytes of the data of storages that pc_storage_alloc makes. */
#define PC_STORAGE_ALIGN 64
/* A buffer of this many chars holds pc_shape_format() of any shape of up to
 * PC_TENSOR_MAX_DIMS dimensions: "[" + 16 x "-9223372036854775808, " + "]". */
#define PC_SHAPE_FORMAT_MAX (2 + PC_TENSOR_MAX_DIMS * 22 + 1)

/* ---- storage ---- */

typedef struct pc_storage pc_storage;

/* Called once when the last reference to a wrapped storage goes away, with the data pointer
 * and byte size given to pc_storage_wrap: munmap them, free them, unpin a file, ... */
typedef void (*pc_storage_release_fn)(void *ctx, void *data, size_t nbytes);

/* A new storage of nbytes zeroed bytes (0 is fine), aligned to PC_STORAGE_ALIGN, with one
 * reference for the caller. PC_ERR_RANGE above PC_TENSOR_MAX_BYTES, PC_ERR_NOMEM. */
pc_status pc_storage_alloc(pc_storage **out, size_t nbytes);
/* The same with bytes of no defined value, for storages the caller writes whole before reading
 * any of them (a fresh or reused large block spares zeroing it). */
pc_status pc_storage_alloc_uninit(pc_storage **out, size_t nbytes);

/*
 * A storage over memory the caller already has (a mapped file, a buffer of another library),
 * without copying it, with one reference for the caller. release (may be NULL: borrowed memory
 * that outlives the storage) is called with (ctx, data, nbytes) when the last reference goes.
 * The storage takes over the memory on every call: when this fails (PC_ERR_NOMEM; PC_ERR_INVALID
 * for data == NULL with nbytes > 0), release has already been called before it returns.
 * data may be NULL when nbytes is 0.
 */
pc_status pc_storage_wrap(pc_storage **out, void *data, size_t nbytes,
                          pc_storage_release_fn release, void *ctx);

pc_storage *pc_storage_ref(pc_storage *storage); /* takes a reference; returns storage */
void pc_storage_unref(pc_storage *storage);      /* drops one; NULL is fine */
void *pc_storage_data(const pc_storage *storage);
size_t pc_storage_nbytes(const pc_storage *storage);
long pc_storage_refcount(const pc_storage *storage); /* a snapshot, for tests */

/* ---- the tensor ---- */

/* Fields are read-only outside this module; change them only through the functions here. */
typedef struct pc_tensor {
    pc_dtype dtype;
    int rank;                            /* 0..PC_TENSOR_MAX_DIMS */
    int64_t shape[PC_TENSOR_MAX_DIMS];   /* entries past rank are 0 */
    int64_t strides[PC_TENSOR_MAX_DIMS]; /* in elements, >= 0 */
    int64_t offset;                      /* of element [0, ..., 0], in elements of dtype */
    pc_storage *storage;                 /* one reference; NULL only in the null tensor */
} pc_tensor;

/* The null tensor: holds nothing (storage NULL); what a freed tensor becomes. */
#define PC_TENSOR_NULL ((pc_tensor){.dtype = PC_DTYPE_INVALID})

/* A new contiguous tensor of zeros. shape may be NULL when rank is 0. */
pc_status pc_tensor_alloc(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank);

/* A new contiguous tensor whose elements have no defined value: for outputs the caller writes
 * whole before anything reads them (a large one is then neither zeroed nor faulted in again
 * when a freed block is reused). */
pc_status pc_tensor_alloc_uninit(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank);

/* A new contiguous tensor of zeros with the shape of like and the given dtype. */
pc_status pc_tensor_alloc_like(pc_tensor *out, const pc_tensor *like, pc_dtype dtype);

/* A contiguous tensor over existing memory: pc_storage_wrap (with its rule that release is
 * called even when this fails) and then pc_tensor_from_storage, checking that nbytes holds the
 * shape. */
pc_status pc_tensor_wrap(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank, void *data,
                         size_t nbytes, pc_storage_release_fn release, void *ctx);

/* A tensor on storage; takes its own reference (the caller keeps its one). strides NULL means
 * contiguous; offset in elements of dtype. PC_ERR_RANGE when an element lies outside. */
pc_status pc_tensor_from_storage(pc_tensor *out, pc_storage *storage, pc_dtype dtype,
                                 const int64_t *shape, const int64_t *strides, int rank,
                                 int64_t offset);

/* Drops t's reference and leaves the null tensor in *t. NULL and the null tensor are fine. */
void pc_tensor_free(pc_tensor *t);

/* *out becomes a second owner of src (same view, one more reference). Never fails. */
void pc_tensor_share(pc_tensor *out, const pc_tensor *src);

/* ---- queries ---- */

bool pc_tensor_is_null(const pc_tensor *t);
int64_t pc_tensor_numel(const pc_tensor *t); /* 1 for 0-dim, 0 for zero-size and null */
size_t pc_tensor_nbytes(const pc_tensor *t); /* numel x element size (not the storage's) */
/* torch's rule: the elements lie in row-major order without gaps; dimensions of size 1 may
 * have any stride, and a tensor without elements is contiguous. */
bool pc_tensor_is_contiguous(const pc_tensor *t);
bool pc_tensor_same_shape(const pc_tensor *a, const pc_tensor *b);
/* Address of element [0, ..., 0]; for a zero-size tensor a valid address never to be read;
 * NULL for the null tensor. */
void *pc_tensor_data(const pc_tensor *t);
/* Address of the element at index (rank entries, each 0 <= index[i] < shape[i]; NULL for a
 * 0-dim tensor); NULL when the index is out of range. */
void *pc_tensor_element_ptr(const pc_tensor *t, const int64_t *index);

/* ---- views (share src's storage; see "Output parameters" for out == src) ---- */

/* torch's as_strided: any shape, strides (NULL: contiguous) and offset (from the start of the
 * storage, in elements) whose elements all lie inside src's storage. */
pc_status pc_tensor_view(pc_tensor *out, const pc_tensor *src, const int64_t *shape,
                         const int64_t *strides, int rank, int64_t offset);
/* torch's view of a contiguous tensor: the same elements in a new shape; one entry may be -1
 * (inferred). PC_ERR_INVALID when src is not contiguous or the element counts differ. */
pc_status pc_tensor_reshape(pc_tensor *out, const pc_tensor *src, const int64_t *shape, int rank);
/* Dimension i of the result is dimension dims[i] of src; negative dims count from the end.
 * dims has src->rank entries (NULL for 0-dim). */
pc_status pc_tensor_permute(pc_tensor *out, const pc_tensor *src, const int *dims);
pc_status pc_tensor_transpose(pc_tensor *out, const pc_tensor *src, int dim0, int dim1);
/* src[..., index, ...] along dim: one dimension fewer. Negative dim and index count from
 * the end, as in torch; PC_ERR_RANGE when out of range, PC_ERR_INVALID for 0-dim src. */
pc_status pc_tensor_select(pc_tensor *out, const pc_tensor *src, int dim, int64_t index);
/* Elements start .. start + length - 1 along dim (torch.narrow); a negative start counts from
 * the end. */
pc_status pc_tensor_narrow(pc_tensor *out, const pc_tensor *src, int dim, int64_t start,
                           int64_t length);
/* torch's expand: broadcasts dimensions of size 1 (and new leading ones) to shape with stride
 * 0; -1 keeps a dimension. Never copies. */
pc_status pc_tensor_expand(pc_tensor *out, const pc_tensor *src, const int64_t *shape, int rank);

/* ---- copies ---- */

/* src itself (a new reference) when it is contiguous, otherwise a contiguous copy. */
pc_status pc_tensor_contiguous(pc_tensor *out, const pc_tensor *src);
/* A new contiguous tensor of dtype with src's values, converted as pc_convert_buffer does
 * (float -> int truncates, -> bool is != 0, complex -> real keeps the real part, integers
 * exactly). Always a copy, also when dtype is src's and src is contiguous: the result is the
 * caller's alone (pc_tensor_cast(&t, &src, src.dtype) is torch's clone). */
pc_status pc_tensor_cast(pc_tensor *out, const pc_tensor *src, pc_dtype dtype);
/* Writes src's values, converted to dst's dtype, into dst's elements (same shape, any
 * strides: dst may be a view). dst and src must not share elements unless they are the same
 * view. PC_ERR_INVALID when the shapes differ. */
pc_status pc_tensor_copy(pc_tensor *dst, const pc_tensor *src);

/* ---- values ---- */

/* Every element (of a view: only the elements it reaches) becomes value, converted as
 * pc_element_store does. */
void pc_tensor_fill(pc_tensor *t, double value);
/* The same for re + im*i; PC_ERR_INVALID when im != 0 and t's dtype is not complex (torch:
 * "value cannot be converted"). */
pc_status pc_tensor_fill_complex(pc_tensor *t, double re, double im);

/* One element through double, for tests and small code (index as for
 * pc_tensor_element_ptr; an out-of-range index aborts). int64 values beyond 2^53 do not
 * survive a trip through double: use pc_tensor_element_ptr for those. */
double pc_tensor_get(const pc_tensor *t, const int64_t *index); /* complex: the real part */
void pc_tensor_get_complex(const pc_tensor *t, const int64_t *index, double *re, double *im);
void pc_tensor_set(pc_tensor *t, const int64_t *index, double value);
void pc_tensor_set_complex(pc_tensor *t, const int64_t *index, double re, double im);

/* ---- shapes ---- */

/* Checks that a tensor of dtype and shape can exist (see "Errors" above) and gives its element
 * count and byte size (either pointer may be NULL). For readers that validate a shape found in
 * a file before they read the data. */
pc_status pc_tensor_check_shape(pc_dtype dtype, const int64_t *shape, int rank, int64_t *numel,
                                size_t *nbytes);

/* torch's contiguous strides of a valid shape: strides[i] is the product of shape[i+1..],
 * with dimensions of size 0 counted as 1. */
void pc_shape_contiguous_strides(const int64_t *shape, int rank, int64_t *strides);

/* Writes "[2, 3, 4]" ("[]" for rank 0), as torch.Size prints without the name, into dst and
 * returns the length the whole text has, like snprintf (so a result >= size means it was
 * cut). */
int pc_shape_format(char *dst, size_t size, const int64_t *shape, int rank);

#endif
