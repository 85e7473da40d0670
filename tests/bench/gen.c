/* make bench, step 1: writes the benchmark corpora with featc's own writer
 * (the serializers generated from tests/bench/ specs and specs/tutorial.feat),
 * deterministically: the same bytes on every machine and every run.
 *
 *   gen DIR   writes DIR/tutorial.tfrecord    200,000 records, 4 scalar features
 *                    DIR/tutorial.tfrecord.gz the same records, GZIP
 *                    DIR/tutorial.tfrecord.zz the same records, ZLIB
 *                    DIR/wide.tfrecord        101 features, 26 of them read
 *                    DIR/wide.tfrecord.gz     the same records, GZIP
 *                    DIR/wide.tfrecord.zz     the same records, ZLIB
 *                    DIR/image.tfrecord       300 records of 60-120 KB images
 *                    DIR/sequence.tfrecord    SequenceExamples of 20-200 frames
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutorial.h"
#include "wide_all.h"
#include "photo.h"
#include "clip.h"

#define TUTORIAL_RECORDS 200000
#define WIDE_RECORDS 3000
#define IMAGE_RECORDS 300
#define SEQUENCE_RECORDS 5000

/* splitmix64: a fixed, portable stream of numbers from a seed. */
static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
    return rng() % n;
}

/* A float in [-4, 4) with 2^-20 steps: exact in binary, the same everywhere. */
static float rfloat(void)
{
    return (float)((int64_t)below(1u << 23) - (1 << 22)) / (float)(1 << 20);
}

typedef struct out_file {
    const char *path;
    int fd;
    fc_writer w;
    unsigned long records;
} out_file;

static unsigned char work[FC_WRITER_WORK_SIZE];
static unsigned char rec[1u << 18];

static void die(const char *path, const char *what)
{
    fprintf(stderr, "gen: %s: %s\n", path, what);
    exit(1);
}

static void open_out(out_file *o, const char *dir, const char *name, fc_compression c)
{
    static char paths[8][1024];
    static int n;
    fc_writer_options wo;
    fc_error err;
    snprintf(paths[n], sizeof paths[n], "%s/%s", dir, name);
    o->path = paths[n++];
    o->records = 0;
    o->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o->fd < 0)
        die(o->path, strerror(errno));
    memset(&wo, 0, sizeof wo);
    wo.compression = c;
    wo.level = 6;
    wo.work = work;
    wo.work_size = sizeof work;
    if (fc_writer_init_fd(&o->w, o->fd, &wo, &err) != FC_OK)
        die(o->path, err.message);
}

static void close_out(out_file *o)
{
    if (fc_writer_close(&o->w) != FC_OK)
        die(o->path, fc_writer_error(&o->w)->message);
    if (close(o->fd) != 0)
        die(o->path, strerror(errno));
    printf("gen: %-28s %7lu records\n", o->path, o->records);
}

static void check(out_file *o, int rc, const fc_error *err)
{
    if (rc != FC_OK)
        die(o->path, err->message);
    o->records++;
}

static const char *const animals[5] = {"cat", "dog", "chicken", "horse", "goat"};

/* The tutorial's records: feature0 a bool, feature1 in [0, 5), feature2 the
 * animal feature1 names, feature3 a float.  All four written in every record,
 * as tf.train.Example in the tutorial writes them.  GZIP output needs its own
 * writer arena, so the two files are written one after the other. */
static void gen_tutorial(const char *dir, const char *name, fc_compression c)
{
    out_file o;
    tutorial_record t;
    fc_error err;
    long i;
    rng_state = 1;
    open_out(&o, dir, name, c);
    for (i = 0; i < TUTORIAL_RECORDS; i++) {
        tutorial_record_init(&t);
        t.feature0 = (int64_t)below(2);
        t.feature1 = (int64_t)below(5);
        t.feature2.data = (const uint8_t *)animals[t.feature1];
        t.feature2.size = strlen(animals[t.feature1]);
        t.feature3 = rfloat();
        check(&o, tutorial_record_write(&o.w, &t, FC_WRITE_DEFAULTS, rec, sizeof rec, &err), &err);
    }
    close_out(&o);
}

static char tag_text[20][16];

/* Fills the 101 features through the message descriptor: dense_NN are
 * float[16], ids_NN VarLen int64, tag_NN bytes, label a float. */
static void gen_wide(const char *dir, const char *name, fc_compression c)
{
    static wide_all_record m;
    const fc_message_desc *d = &wide_all_record_desc;
    out_file o;
    fc_error err;
    long i;
    size_t f, k, tags;
    rng_state = 2;
    open_out(&o, dir, name, c);
    for (i = 0; i < WIDE_RECORDS; i++) {
        wide_all_record_init(&m);
        tags = 0;
        for (f = 0; f < d->nfields; f++) {
            const fc_field_desc *fd = &d->fields[f];
            char *base = (char *)&m + fd->value_offset;
            if (fd->type == FC_TYPE_FLOAT && fd->elems == 16) {
                for (k = 0; k < 16; k++)
                    ((float *)base)[k] = rfloat();
            } else if (fd->type == FC_TYPE_FLOAT) {
                *(float *)base = (float)below(2);
            } else if (fd->type == FC_TYPE_INT64) {
                size_t n = (size_t)below(21);
                memcpy((char *)&m + fd->count_offset, &n, sizeof n);
                for (k = 0; k < n; k++)
                    ((int64_t *)base)[k] = (int64_t)below((uint64_t)1 << 40);
            } else {
                fc_bytes *b = (fc_bytes *)base;
                size_t len = 4 + (size_t)below(12);
                for (k = 0; k < len; k++)
                    tag_text[tags][k] = (char)('a' + below(26));
                b->data = (const uint8_t *)tag_text[tags++];
                b->size = len;
            }
        }
        check(&o, wide_all_record_write(&o.w, &m, FC_WRITE_DEFAULTS, rec, sizeof rec, &err),
              &err);
    }
    close_out(&o);
}

static uint8_t pixels[120 * 1024];

static void gen_image(const char *dir)
{
    out_file o;
    img_photo m;
    fc_error err;
    long i;
    size_t k;
    rng_state = 3;
    open_out(&o, dir, "image.tfrecord", FC_COMPRESSION_NONE);
    for (i = 0; i < IMAGE_RECORDS; i++) {
        size_t size = 60 * 1024 + (size_t)below(60 * 1024 + 1);
        for (k = 0; k + 8 <= size; k += 8) {
            uint64_t r = rng();
            memcpy(pixels + k, &r, 8);
        }
        for (; k < size; k++)
            pixels[k] = (uint8_t)rng();
        img_photo_init(&m);
        m.height = 200 + (int64_t)below(200);
        m.width = 200 + (int64_t)below(200);
        m.depth = 3;
        m.label = (int64_t)below(1000);
        m.image_raw.data = pixels;
        m.image_raw.size = size;
        check(&o, img_photo_write(&o.w, &m, FC_WRITE_DEFAULTS, rec, sizeof rec, &err), &err);
    }
    close_out(&o);
}

static char words[256][4][12];

static void gen_sequence(const char *dir)
{
    static seq_clip m;
    static char id[32];
    out_file o;
    fc_error err;
    long i;
    size_t t, k;
    rng_state = 4;
    open_out(&o, dir, "sequence.tfrecord", FC_COMPRESSION_NONE);
    for (i = 0; i < SEQUENCE_RECORDS; i++) {
        size_t frames = 20 + (size_t)below(181);
        seq_clip_init(&m);
        snprintf(id, sizeof id, "clip-%08ld", i);
        m.id.data = (const uint8_t *)id;
        m.id.size = strlen(id);
        m.length = (int64_t)frames;
        m.weight = rfloat();
        m.score_frames = m.token_frames = m.tags_frames = frames;
        for (t = 0; t < frames; t++) {
            m.score[t] = rfloat();
            m.token[t] = (int64_t)below(50000);
            m.tags_count[t] = (size_t)below(4);
            for (k = 0; k < m.tags_count[t]; k++) {
                size_t len = 3 + (size_t)below(8), c;
                for (c = 0; c < len; c++)
                    words[t][k][c] = (char)('a' + below(26));
                m.tags[t][k].data = (const uint8_t *)words[t][k];
                m.tags[t][k].size = len;
            }
        }
        check(&o, seq_clip_write(&o.w, &m, FC_WRITE_DEFAULTS, rec, sizeof rec, &err), &err);
    }
    close_out(&o);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen DIR\n");
        return 64;
    }
    gen_tutorial(argv[1], "tutorial.tfrecord", FC_COMPRESSION_NONE);
    gen_tutorial(argv[1], "tutorial.tfrecord.gz", FC_COMPRESSION_GZIP);
    gen_tutorial(argv[1], "tutorial.tfrecord.zz", FC_COMPRESSION_ZLIB);
    gen_wide(argv[1], "wide.tfrecord", FC_COMPRESSION_NONE);
    gen_wide(argv[1], "wide.tfrecord.gz", FC_COMPRESSION_GZIP);
    gen_wide(argv[1], "wide.tfrecord.zz", FC_COMPRESSION_ZLIB);
    gen_image(argv[1]);
    gen_sequence(argv[1]);
    return 0;
}
