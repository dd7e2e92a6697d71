/* libFuzzer harness: CSV bytes -> records through the streaming reader, every field touched. */
#include <stddef.h>
#include <stdint.h>

#include "precheck/io/csv_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink; /* keeps the field reads from being optimised away */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_csv_reader *r = NULL;
    if (pc_csv_reader_open_memory((const char *)data, size, "fuzz.csv", &r) != PC_OK)
        return 0;
    bool has_row = false;
    size_t total = 0;
    while (pc_csv_reader_next(r, &has_row) == PC_OK && has_row) {
        size_t n = pc_csv_reader_field_count(r);
        for (size_t i = 0; i < n; i++) {
            size_t len = 0;
            const char *f = pc_csv_reader_field(r, i, &len);
            if (len)
                total += (unsigned char)f[len - 1];
        }
        total += pc_csv_reader_line(r);
    }
    sink = total;
    pc_csv_reader_free(r);
    return 0;
}
