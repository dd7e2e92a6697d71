/* The inputs of one API as run_ut makes them, saved as files (precheck repro, op_generate's
 * precheck inputs): a one-API dump materialised. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "precheck/inputs/inputs.h"
#include "precheck/inputs/materialize.h"
#include "precheck/io/path_check.h"
#include "precheck/repro/repro.h"

/* Removes dir/dump_tensor_data/<files>, dir/dump.json and the folders (what extract wrote). */
static void remove_extract(const char *dir)
{
    char sub[PC_PATH_BUFFER_SIZE + 32], path[2 * PC_PATH_BUFFER_SIZE];
    snprintf(sub, sizeof sub, "%s/dump_tensor_data", dir);
    DIR *d = opendir(sub);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
            unlink(path);
        }
        closedir(d);
        rmdir(sub);
    }
    snprintf(path, sizeof path, "%s/dump.json", dir);
    unlink(path);
    rmdir(dir);
}

pc_status pc_repro_inputs(const char *dump_json, const char *api_full_name, const char *out_dir,
                          uint64_t seed)
{
    char work[PC_PATH_BUFFER_SIZE], json[PC_PATH_BUFFER_SIZE + 16];
    int n = snprintf(work, sizeof work, "%s/.extract", out_dir);
    if (n < 0 || (size_t)n >= sizeof work)
        return pc_error_set(PC_ERR_RANGE, "the folder name %s is too long", out_dir);
    pc_status st = pc_path_make_dir(work);
    if (st != PC_OK)
        return st;
    snprintf(json, sizeof json, "%s/dump.json", work);
    st = pc_repro_extract(dump_json, api_full_name, json, PC_REPRO_EXTRACT_DUMP, NULL);
    if (st == PC_OK) {
        pc_materialize_options o = {.api_info = json,
                                    .out_dir = out_dir,
                                    .seed = seed,
                                    .max_bytes = pc_inputs_default_max_bytes()};
        st = pc_materialize(&o, NULL);
    }
    remove_extract(work);
    return st;
}
