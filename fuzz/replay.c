/*
 * Replays a fuzz harness over files, without libFuzzer: every regular file under each
 * argument (a file or a directory, walked recursively) is read and passed to
 * LLVMFuzzerTestOneInput. Built with any compiler, so the corpus runs in every ctest build
 * (the ASan+UBSan one included) even where clang's libFuzzer is not installed.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long files_run;

static int run_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type != FTW_F || !S_ISREG(st->st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t size = (size_t)st->st_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf || fread(buf, 1, size, f) != size) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, size);
    free(buf);
    files_run++;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (nftw(argv[i], run_file, 16, FTW_PHYS) != 0) {
            fprintf(stderr, "replay: failed on %s\n", argv[i]);
            return 1;
        }
    }
    printf("replayed %lu inputs\n", files_run);
    return files_run ? 0 : 1;
}
