/* The main job of featc, end to end: write a TFRecord file of
 * tf.train.Example records with the runtime writer (plain and GZIP), then
 * read both files back through the parser featc generated from
 * specs/tutorial.feat, and check every value against what was written.
 *
 * The records are the four scalar features of TensorFlow's TFRecord tutorial:
 * feature0 (int64 0/1), feature1 (int64 0..4), feature2 (bytes: one of cat,
 * dog, chicken, horse, goat), feature3 (float).  Each is a tutorial_record
 * struct, written by the generated tutorial_record_write: the bytes are
 * those tf.train.Example(...).SerializeToString(deterministic=True) gives.
 * Last, a record with a wrong type shows the error a reader gets.
 *
 * The write, serialize, read and parse paths allocate nothing: the record
 * buffer, the zlib arena and the structs are the caller's (static or on the
 * stack).
 *
 * usage: hello_tfrecord OUTDIR [N]
 */
#include <featc/fc.h>

#include "tutorial.h" /* generated: featc compile specs/tutorial.feat */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The values of record i: deterministic, so that the reader can check them. */
typedef struct values {
    int64_t f0, f1;
    const char *f2;
    float f3;
} values;

static values record_values(int i)
{
    static const char *const animals[] = {"cat", "dog", "chicken", "horse", "goat"};
    uint32_t seed = 0x9e3779b9u * (uint32_t)(i + 1); /* a small integer hash */
    values v;
    seed ^= seed >> 16;
    seed *= 0x85ebca6bu;
    seed ^= seed >> 13;
    seed *= 0xc2b2ae35u;
    seed ^= seed >> 16;
    v.f0 = (int64_t)(seed & 1u);
    v.f1 = (int64_t)((seed >> 17) % 5u);
    v.f2 = animals[v.f1];
    v.f3 = (float)((int)((seed >> 8) % 2001u) - 1000) / 250.0f;
    return v;
}

static int write_file(const char *path, fc_compression c, int n, void *work)
{
    fc_writer_options wo;
    fc_writer w;
    fc_error err;
    unsigned char rec[1024];
    tutorial_record t;
    int i, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(&wo, 0, sizeof wo);
    wo.compression = c;
    wo.work = work;
    wo.work_size = FC_WRITER_WORK_SIZE;
    if (fc_writer_init_fd(&w, fd, &wo, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        close(fd);
        return 1;
    }
    for (i = 0; i < n; i++) {
        values v = record_values(i);
        tutorial_record_init(&t);
        t.feature0 = v.f0;
        t.feature1 = v.f1;
        t.feature2.data = (const uint8_t *)v.f2;
        t.feature2.size = strlen(v.f2);
        t.feature3 = v.f3;
        /* FC_WRITE_DEFAULTS: all four features in every record, as the
         * tutorial writes them, even where a value equals the spec's default
         * (FC_OMIT_DEFAULTS would leave those out: they read back the same) */
        if (tutorial_record_write(&w, &t, FC_WRITE_DEFAULTS, rec, sizeof rec, &err) != FC_OK) {
            fprintf(stderr, "%s: record %d: %s\n", path, i, err.message);
            fc_writer_close(&w);
            close(fd);
            return 1;
        }
    }
    if (fc_writer_close(&w) != FC_OK || close(fd) != 0) {
        fprintf(stderr, "%s: %s\n", path, fc_writer_error(&w)->message);
        return 1;
    }
    printf("wrote %d records to %s (%s)\n", n, path, fc_compression_name(c));
    return 0;
}

/* Reads path (compression detected) through the generated parser; prints the
 * first records and compares every record with record_values().  Returns the
 * number of records that failed. */
static int read_file(const char *path, int n, void *buffer, size_t buffer_size, void *work)
{
    fc_reader_options ro;
    fc_reader r;
    fc_record rec;
    fc_error err;
    int s, count = 0, bad = 0, fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(&ro, 0, sizeof ro);
    ro.compression = FC_COMPRESSION_AUTO;
    ro.crc_policy = FC_CRC_VERIFY;
    ro.buffer = buffer;
    ro.buffer_size = buffer_size;
    ro.work = work;
    ro.work_size = FC_READER_WORK_SIZE;
    if (fc_reader_init_fd(&r, fd, &ro, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        close(fd);
        return 1;
    }
    while ((s = fc_reader_next(&r, &rec)) == FC_OK) {
        tutorial_record t;
        values v = record_values(count);
        if (tutorial_record_parse(&t, rec.data, rec.length, &err) != FC_OK) {
            fprintf(stderr, "%s: record %d: %s\n", path, count, err.message);
            bad++;
        } else {
            if (count < 4)
                printf("  record %d: feature0=%lld feature1=%lld feature2=\"%.*s\" feature3=%g\n",
                       count, (long long)t.feature0, (long long)t.feature1,
                       (int)t.feature2.size, (const char *)t.feature2.data, (double)t.feature3);
            if (t.feature0 != v.f0 || t.feature1 != v.f1 || t.feature3 != v.f3 ||
                t.feature2.size != strlen(v.f2) ||
                memcmp(t.feature2.data, v.f2, t.feature2.size) != 0 ||
                !tutorial_record_has(&t, TUTORIAL_RECORD_FEATURE2)) {
                fprintf(stderr, "%s: record %d: values differ from those written\n", path, count);
                bad++;
            }
        }
        count++;
    }
    if (s != FC_END) {
        fprintf(stderr, "%s: %s\n", path, fc_reader_error(&r)->message);
        bad++;
    }
    close(fd);
    printf("read %d records from %s (%s, CRCs verified) through tutorial_record_parse: "
           "%d differ from what was written\n",
           count, path, fc_compression_name(fc_reader_compression(&r)), bad);
    return bad + (count != n);
}

int main(int argc, char **argv)
{
    static unsigned char work[FC_WRITER_WORK_SIZE > FC_READER_WORK_SIZE ? FC_WRITER_WORK_SIZE
                                                                         : FC_READER_WORK_SIZE];
    static unsigned char buffer[64 * 1024];
    char plain[512], gz[512];
    int n = argc > 2 ? atoi(argv[2]) : 4;
    int failed;
    unsigned char rec[1024];
    size_t len;
    tutorial_record t;
    fc_error err;
    if (argc < 2 || n < 0) {
        fprintf(stderr, "usage: hello_tfrecord OUTDIR [N]\n");
        return 64;
    }
    snprintf(plain, sizeof plain, "%s/hello.tfrecord", argv[1]);
    snprintf(gz, sizeof gz, "%s/hello.tfrecord.gz", argv[1]);
    if (write_file(plain, FC_COMPRESSION_NONE, n, work) != 0 ||
        write_file(gz, FC_COMPRESSION_GZIP, n, work) != 0)
        return 1;
    failed = read_file(plain, n, buffer, sizeof buffer, work);
    failed += read_file(gz, n, buffer, sizeof buffer, work);

    /* A record TensorFlow would reject: feature1 holds a float_list.  The
     * generated parser says what TF says, and where. */
    tutorial_record_init(&t);
    t.feature0 = 1;
    t.feature1 = 2;
    t.feature2.data = (const uint8_t *)"dog";
    t.feature2.size = 3;
    t.feature3 = 0.5f;
    if (tutorial_record_serialize(&t, FC_WRITE_DEFAULTS, rec, sizeof rec, &len, &err) != FC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    {
        /* feature1's Feature is the second entry; find its int64_list tag (0x1a)
         * right after the key "feature1" and the Feature header. */
        unsigned char *k = NULL;
        size_t i;
        for (i = 0; i + 8 <= len; i++)
            if (memcmp(rec + i, "feature1", 8) == 0) {
                k = rec + i + 8;
                break;
            }
        if (k == NULL || k[2] != 0x1a)
            return 1;
        k[2] = 0x12; /* int64_list -> float_list (its payload is still a packed field) */
    }
    if (tutorial_record_parse(&t, rec, len, &err) == FC_OK) {
        fprintf(stderr, "the wrongly typed record was accepted\n");
        failed++;
    } else {
        printf("a record with feature1 as a float_list is rejected:\n  %s\n", err.message);
    }
    return failed == 0 ? 0 : 1;
}
