/* Checksums of byte buffers. */
#ifndef PC_IO_CHECKSUM_H
#define PC_IO_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (ISO-HDLC: zlib's crc32, what zip files and msprobe's md5 summary mode use) of n
 * bytes, continuing from crc (0 to start). Thread-safe. */
uint32_t pc_crc32(uint32_t crc, const void *data, size_t n);

/* SHA-256 (FIPS 180-4) of n bytes into out: what a Content-Security-Policy hash source names
 * (the HTML report's inline script and style). Thread-safe. */
void pc_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
