/*
 * Writes a synthetic msprobe-style dump.json (see dump_synth.h).
 *
 * usage: gen_dump OUT.json [pairs=100000] [seed=1]
 *   100000 pairs give about 200 MB; use e.g. 100 for a CI smoke run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dump_synth.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s OUT.json [pairs=100000] [seed=1]\n", argv[0]);
        return 2;
    }
    long pairs = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
    unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (pairs < 0) {
        fprintf(stderr, "%s: pairs must be >= 0\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    int rc = synth_dump_write(f, pairs, seed);
    if (fclose(f) != 0 || rc != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
