/*
 * Private to io/ and its tests: the .pt writer with the zip64 threshold as a parameter, so
 * that tests can make small files that use every zip64 record (the public writer uses
 * 0xFFFFFFFF, where zip requires them).
 */
#ifndef PC_IO_PT_IMPL_H
#define PC_IO_PT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "precheck/core/tensor.h"

/* pc_pt_write_buffer, with zip64 extra fields for every size and offset >= zip64_limit. */
pc_status pc_pt_write_buffer_limit(const pc_tensor *t, const char *archive, uint64_t zip64_limit,
                                   void **data, size_t *size);

#endif
