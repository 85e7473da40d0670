/* libFuzzer harness for featc stats over record bytes (issue 43): the
 * payloads of a TFRecord file, whatever they hold, summarised by the whole
 * command (cmd_stats: the fallback decoder, the per-feature statistics, the
 * sketches, the table, JSON, HTML and TFDV writers, and the pool with -j).
 *
 * The input: byte 0 picks the options (bit 0 --json, bit 1 --html FILE
 * and --tfmd-out FILE, bit 2 -j 2, bit 3 --top 3, bit 4: the file ends in the input's last 5
 * bytes, unframed: a cut record; bits 1 and 5: --compare FILE, the comparison
 * report of the file against itself), then payloads, each a 2-byte
 * little-endian length and that many bytes, framed with good CRCs into one
 * file.  Property: no crash, no leak, no undefined behaviour; an exit
 * status of 0, 1 or 2. */
#include <featc/fc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int optind;

static unsigned char file[1 << 18];
static char path[64], html[64], tfdv[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 1, len = 0, tail = 0;
    char *argv[14];
    int argc = 0, rc;
    FILE *f;
    if (size < 1)
        return 0;
    if (path[0] == '\0') {
        snprintf(path, sizeof path, "/tmp/fuzz_stats.%ld.tfrecord", (long)getpid());
        snprintf(html, sizeof html, "/tmp/fuzz_stats.%ld.html", (long)getpid());
        snprintf(tfdv, sizeof tfdv, "/tmp/fuzz_stats.%ld.pb", (long)getpid());
        if (freopen("/dev/null", "w", stdout) == NULL) /* the table; stderr is libFuzzer's */
            abort();
    }
    if ((data[0] & 16) != 0 && size >= 6) {
        tail = 5;
        size -= tail;
    }
    while (at + 2 <= size) {
        size_t n = (size_t)data[at] | (size_t)data[at + 1] << 8;
        at += 2;
        if (n > size - at)
            n = size - at;
        if (len + n + FC_RECORD_OVERHEAD > sizeof file)
            break;
        len += fc_record_frame(file + len, sizeof file - len, data + at, n);
        at += n;
    }
    if (tail > 0 && len + tail <= sizeof file) {
        memcpy(file + len, data + size, tail);
        len += tail;
    }
    f = fopen(path, "wb");
    if (f == NULL || fwrite(file, 1, len, f) != len || fclose(f) != 0)
        abort();
    argv[argc++] = (char *)"stats";
    if (data[0] & 1)
        argv[argc++] = (char *)"--json";
    if (data[0] & 2) {
        argv[argc++] = (char *)"--html";
        argv[argc++] = html;
        argv[argc++] = (char *)"--tfmd-out";
        argv[argc++] = tfdv;
    }
    if (data[0] & 4)
        argv[argc++] = (char *)"-j2";
    if (data[0] & 8)
        argv[argc++] = (char *)"--top=3";
    if ((data[0] & 34) == 34) { /* the comparison report, the file against itself */
        argv[argc++] = (char *)"--compare";
        argv[argc++] = path;
    }
    argv[argc++] = path;
    argv[argc] = NULL;
    optind = 0; /* getopt starts over */
    rc = cmd_stats(argc, argv);
    if (rc < 0 || rc > 2)
        abort();
    return 0;
}
