/* featc breaking OLD NEW: the changes from one spec to the next that break
 * data already written or what was built on the old spec (compiler's
 * breaking.c), as buf breaking does for protobuf.  Either spec may be
 * git:REV:PATH, the file at a revision (git show), so that a build or CI
 * compares a spec with the one on its main branch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <featc/featc.h>

#include "commands.h"
#include "base/cli.h"

static const char *const breaking_usage =
    "usage: featc breaking [options] OLD NEW\n"
    "\n"
    "Lists every change from the spec OLD to the spec NEW that breaks records\n"
    "written under OLD (NEW's parser refuses them, or reads other values) or\n"
    "what was built on OLD (its generated fields, the jobs reading a feature),\n"
    "one error per change at its place in NEW, its rule in brackets, with a\n"
    "note at its place in OLD.  OLD or NEW may be git:REV:PATH, the spec at a\n"
    "revision of the git repository around the current directory (git show\n"
    "REV:PATH), e.g. git:main:specs/clicks.feat.\n"
    "\n"
    "options:\n"
    "  --rules=LIST            only these rules (comma-separated names; all by\n"
    "                          default)\n"
    "  --list-rules            print each rule and why it breaks, and exit\n"
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 no breaking change; 1 breaking changes, or errors in a\n"
    "spec; 2 a spec could not be read; 64 usage error.\n";

enum { OPT_RULES = CLI_OPT_FIRST + 96, OPT_LIST_RULES };

static const struct option breaking_long[] = {{"rules", required_argument, NULL, OPT_RULES},
                                              {"list-rules", no_argument, NULL, OPT_LIST_RULES},
                                              CLI_COMMON_OPTIONS,
                                              {NULL, 0, NULL, 0}};

static const cli_command breaking_cmd = {"breaking", breaking_usage, "h", breaking_long};

/* The output of `git show REV:PATH` (spec: "git:REV:PATH"), malloc'd; NULL
 * with the error printed. */
static char *read_git(const char *spec, size_t *len)
{
    /* (the caller has checked: REV:PATH, REV not starting with '-') */
    const char *object = spec + 4; /* REV:PATH, as git show takes it */
    int fds[2], status;
    pid_t pid;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (pipe(fds) != 0) {
        cli_fail(EXIT_DATA_ERR, "pipe: %s", strerror(errno));
        return NULL;
    }
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        cli_fail(EXIT_DATA_ERR, "fork: %s", strerror(errno));
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("git", "git", "show", "--end-of-options", object, (char *)NULL);
        fprintf(stderr, "featc: cannot run git: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        ssize_t k;
        if (n + 4096 > cap) {
            char *nb = (char *)realloc(buf, cap = cap * 2 + 8192);
            if (nb == NULL || cap > (16u << 20) + 8192) {
                free(nb != NULL ? nb : buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        k = read(fds[0], buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (buf == NULL || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        cli_fail(EXIT_DATA_ERR, "%s: git show %s failed%s", spec, object,
                 buf == NULL ? " (or the spec is over 16 MiB)" : "");
        return NULL;
    }
    *len = n;
    return buf;
}

static char *read_spec(const char *spec, size_t *len)
{
    if (strncmp(spec, "git:", 4) == 0)
        return read_git(spec, len);
    return cli_read_file(spec, len);
}

int cmd_breaking(int argc, char **argv)
{
    const char *rules = NULL;
    char *old_src = NULL, *new_src = NULL;
    size_t old_len = 0, new_len = 0, i;
    featc_options oo = FEATC_OPTIONS_INIT, no = FEATC_OPTIONS_INIT;
    int opt, rc, found;
    while ((opt = cli_next_option(&breaking_cmd, argc, argv, &rc)) != 0) {
        switch (opt) {
        case OPT_RULES: rules = optarg; break;
        case OPT_LIST_RULES:
            for (i = 0; featc_breaking_rule(i, NULL) != NULL; i++) {
                const char *why, *name = featc_breaking_rule(i, &why);
                printf("%-22s %s\n", name, why);
            }
            return EXIT_OK;
        default: return rc;
        }
    }
    if (rc >= 0)
        return rc;
    if (argc - optind != 2) {
        fprintf(stderr, "featc breaking: two specs are needed, OLD and NEW\n%s",
                breaking_usage);
        return EXIT_USAGE_ERR;
    }
    for (i = 0; i < 2; i++) {
        const char *a = argv[optind + (int)i];
        if (strncmp(a, "git:", 4) != 0)
            continue;
        if (strchr(a + 4, ':') == NULL)
            return cli_usage_error(&breaking_cmd, "%s: not git:REV:PATH", a);
        /* what follows git: is data: an option of git's (--output=FILE
         * writes a file) is refused here, and --end-of-options tells git */
        if (a[4] == '-')
            return cli_usage_error(&breaking_cmd, "%s: a revision may not start with '-'", a);
    }
    if ((old_src = read_spec(argv[optind], &old_len)) == NULL ||
        (new_src = read_spec(argv[optind + 1], &new_len)) == NULL) {
        free(old_src);
        return EXIT_DATA_ERR;
    }
    oo.spec_name = argv[optind];
    no.spec_name = argv[optind + 1];
    oo.diag = no.diag = cli_print_diagnostic;
    found = featc_breaking(old_src, old_len, &oo, new_src, new_len, &no, rules);
    free(old_src);
    free(new_src);
    return found == 0 ? EXIT_OK : EXIT_RECORD_ERR;
}
