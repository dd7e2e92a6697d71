/* The subcommands of the precheck program; each takes argv from its own name on and returns
 * the exit status (0 success, 1 failure, 2 usage error). */
#ifndef PC_CLI_COMMANDS_H
#define PC_CLI_COMMANDS_H

int pc_cli_api_precision_compare(int argc, char **argv);
int pc_cli_check_dump(int argc, char **argv);
int pc_cli_compare(int argc, char **argv);
int pc_cli_diff(int argc, char **argv);
int pc_cli_materialize(int argc, char **argv);
int pc_cli_merge(int argc, char **argv);
int pc_cli_multi_run_ut(int argc, char **argv);
int pc_cli_op_generate(int argc, char **argv);
int pc_cli_ops(int argc, char **argv);
int pc_cli_report(int argc, char **argv);
int pc_cli_repro(int argc, char **argv);
int pc_cli_run_overflow_check(int argc, char **argv);
int pc_cli_run_ut(int argc, char **argv);

#endif
