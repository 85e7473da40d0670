/* The featc commands, as main.c's table of commands calls them: each takes
 * argv from its own name on and returns the exit status (base/cli.h). */
#ifndef FEATC_CLI_COMMANDS_H
#define FEATC_CLI_COMMANDS_H

#include "base/read.h"

/* compile.c: the compiler's commands */
int cmd_compile(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_export(int argc, char **argv);
/* breaking.c: what changed from one spec to the next that breaks data */
int cmd_breaking(int argc, char **argv);
/* tfx.c: TensorFlow Extended's formats */
int cmd_import(int argc, char **argv);
/* validate.c: records against a TFMD schema's constraints */
int cmd_validate(int argc, char **argv);
/* records.c, infer.c, index.c, stats/stats.c: the record tools */
int cmd_cat(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* The spec featc infer prints for files (infer.c), in *text (*len bytes;
 * the caller frees it): EXIT_OK, or the exit status with the errors
 * printed (also when a feature could not be described). */
int cli_infer_spec(char **files, int nfiles, const fc_input_options *read, int progress_mode,
                   char **text, size_t *len);

/* featc check SPEC --data FILE... (check_data.c): what cmd_check parsed. */
typedef struct cli_check_opts {
    fc_input_options read;
    const char *message;         /* --message (NULL: the spec's first) */
    int json;                    /* --json: every record as the JSON driver prints it */
    unsigned long long max_errors; /* --max-errors */
    int progress;                /* PROGRESS_* */
} cli_check_opts;
/* Reads files through the spec at spec_path; the exit status. */
int cli_check_data(const char *spec_path, char **files, int nfiles, const cli_check_opts *o);

#endif /* FEATC_CLI_COMMANDS_H */
