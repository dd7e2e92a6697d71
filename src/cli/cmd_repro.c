#include "cli/commands.h"
int pc_cli_repro(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 1;
}
