/* Writes a small TFRecord file of tf.train.Example records with the featc
 * runtime, plain and GZIP-compressed, then reads it back.
 *
 * The records are the four scalar features of TensorFlow's TFRecord tutorial:
 * feature0 (int64 0/1), feature1 (int64 0..4), feature2 (bytes: one of cat,
 * dog, chicken, horse, goat), feature3 (float).  Until featc generates
 * serializers from a spec, the Example bytes are encoded by hand below.
 *
 * usage: hello_tfrecord OUTDIR [N]
 */
#include <featc/fc.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a tiny protobuf encoder, enough for an Example of scalar features */

typedef struct out {
    unsigned char b[1024];
    size_t n;
} out;

static void put_byte(out *o, unsigned v)
{
    if (o->n < sizeof o->b)
        o->b[o->n++] = (unsigned char)v;
}

static void put_varint(out *o, uint64_t v)
{
    while (v >= 0x80) {
        put_byte(o, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    put_byte(o, (unsigned)v);
}

/* tag, length, bytes */
static void put_field(out *o, unsigned tag, const void *p, size_t n)
{
    put_byte(o, tag);
    put_varint(o, n);
    if (o->n + n <= sizeof o->b) {
        memcpy(o->b + o->n, p, n);
        o->n += n;
    }
}

/* Features map entry {key, Feature{kind_tag: list}} appended to features */
static void put_entry(out *features, const char *key, unsigned kind_tag, const out *list)
{
    out feature = {{0}, 0}, entry = {{0}, 0};
    put_field(&feature, kind_tag, list->b, list->n);
    put_field(&entry, 0x0a, key, strlen(key));
    put_field(&entry, 0x12, feature.b, feature.n);
    put_field(features, 0x0a, entry.b, entry.n);
}

static size_t encode_example(unsigned char *dst, int64_t f0, int64_t f1, const char *f2, float f3)
{
    out features = {{0}, 0}, list = {{0}, 0}, example = {{0}, 0}, packed = {{0}, 0};
    unsigned char fb[4];
    uint32_t bits;
    /* keys in sorted order, as protobuf's deterministic serialization writes maps */
    put_varint(&packed, (uint64_t)f0);
    put_field(&list, 0x0a, packed.b, packed.n);
    put_entry(&features, "feature0", 0x1a, &list);
    packed.n = list.n = 0;
    put_varint(&packed, (uint64_t)f1);
    put_field(&list, 0x0a, packed.b, packed.n);
    put_entry(&features, "feature1", 0x1a, &list);
    list.n = 0;
    put_field(&list, 0x0a, f2, strlen(f2));
    put_entry(&features, "feature2", 0x0a, &list);
    list.n = 0;
    memcpy(&bits, &f3, 4);
    fb[0] = (unsigned char)bits;
    fb[1] = (unsigned char)(bits >> 8);
    fb[2] = (unsigned char)(bits >> 16);
    fb[3] = (unsigned char)(bits >> 24);
    put_field(&list, 0x0a, fb, 4);
    put_entry(&features, "feature3", 0x12, &list);
    put_field(&example, 0x0a, features.b, features.n);
    memcpy(dst, example.b, example.n);
    return example.n;
}

static int write_file(const char *path, fc_compression c, int n, void *work)
{
    static const char *const animals[] = {"cat", "dog", "chicken", "horse", "goat"};
    fc_writer_options wo;
    fc_writer w;
    fc_error err;
    unsigned char rec[1024];
    uint32_t seed = 12345;
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
        return 1;
    }
    for (i = 0; i < n; i++) {
        int64_t f0, f1;
        float f3;
        size_t len;
        seed = seed * 1103515245u + 12345u;
        f0 = (int64_t)((seed >> 16) & 1u);
        f1 = (int64_t)((seed >> 17) % 5u);
        f3 = (float)((int)((seed >> 8) % 2001u) - 1000) / 250.0f;
        len = encode_example(rec, f0, f1, animals[f1], f3);
        if (fc_writer_write(&w, rec, len) != FC_OK)
            break;
    }
    if (fc_writer_close(&w) != FC_OK || close(fd) != 0) {
        fprintf(stderr, "%s: %s\n", path, fc_writer_error(&w)->message);
        return 1;
    }
    printf("wrote %d records to %s (%s)\n", n, path, fc_compression_name(c));
    return 0;
}

int main(int argc, char **argv)
{
    static unsigned char work[FC_WRITER_WORK_SIZE];
    char plain[512], gz[512];
    int n = argc > 2 ? atoi(argv[2]) : 4;
    fc_mapped_file m;
    fc_reader r;
    fc_record rec;
    fc_error err;
    int s, count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: hello_tfrecord OUTDIR [N]\n");
        return 64;
    }
    snprintf(plain, sizeof plain, "%s/hello.tfrecord", argv[1]);
    snprintf(gz, sizeof gz, "%s/hello.tfrecord.gz", argv[1]);
    if (write_file(plain, FC_COMPRESSION_NONE, n, work) != 0 ||
        write_file(gz, FC_COMPRESSION_GZIP, n, work) != 0)
        return 1;

    /* read the plain file back: zero copy over a memory map */
    if (fc_map_file(plain, &m, &err) != FC_OK ||
        fc_reader_init_mem(&r, m.data, m.size, NULL, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", plain, err.message);
        return 1;
    }
    while ((s = fc_reader_next(&r, &rec)) == FC_OK)
        count++;
    if (s != FC_END) {
        fprintf(stderr, "%s: %s\n", plain, fc_reader_error(&r)->message);
        return 1;
    }
    printf("read %d records back from %s, CRCs verified\n", count, plain);
    fc_unmap_file(&m);
    return count == n ? 0 : 1;
}
