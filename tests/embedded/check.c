/* The embedded test: the generated tutorial and taobao parsers and
 * serializers, over the memory reader, in a program that needs nothing of
 * a C library but memcpy, memset, memcmp and memmove (tests/embedded/run.sh
 * links it -nostdlib for Cortex-M4 and runs it under qemu-arm).  The same
 * source built for the host prints the same lines: one per record (its
 * index, offset, parse status, a CRC-32C of what it serializes back to and
 * of the hash buckets, and the error text), then the reader's last status.
 * Nothing here allocates; output goes through emb_write, the port's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <featc/fc_crc32c.h>
#include <featc/fc_record.h>

#include "taobao.h"
#include "tutorial.h"

extern const unsigned char emb_tutorial_file[];
extern const size_t emb_tutorial_file_len;
extern const unsigned char emb_taobao_file[];
extern const size_t emb_taobao_file_len;

/* The port: writes n bytes of output (tests/embedded/port_*.c). */
void emb_write(const char *s, size_t n);
int emb_run(void);

/* strlen is not among the four functions the program may take from libc. */
static void out_str(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    emb_write(s, n);
}

static void out_u64(uint64_t v)
{
    char tmp[24];
    size_t n = sizeof tmp;
    do {
        tmp[--n] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    emb_write(tmp + n, sizeof tmp - n);
}

static void out_hex32(uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[8];
    int i;
    for (i = 0; i < 8; i++)
        tmp[i] = hex[(v >> (28 - 4 * i)) & 15u];
    emb_write(tmp, sizeof tmp);
}

static void out_error(const fc_error *err)
{
    out_str(" status ");
    out_u64((uint64_t)err->status);
    if (err->offset != FC_NO_INDEX) {
        out_str(" offset ");
        out_u64(err->offset);
    }
    out_str(" message \"");
    out_str(err->message);
    out_str("\"\n");
}

/* Serialized bytes of a parsed record: room for the largest taobao record. */
static unsigned char ser[64 * 1024];
static tutorial_record tut;
static taobao_user tao;

typedef int (*parse_fn)(const void *data, size_t len, fc_error *err);
/* Serializes what the last parse gave; *crc: its CRC-32C, extended over
 * what parsing computed beyond the values (hash buckets). */
typedef int (*digest_fn)(uint32_t *crc, fc_error *err);

static int tut_parse(const void *data, size_t len, fc_error *err)
{
    return tutorial_record_parse(&tut, data, len, err);
}

static int tut_digest(uint32_t *crc, fc_error *err)
{
    size_t len = 0;
    int rc = tutorial_record_serialize(&tut, FC_WRITE_DEFAULTS, ser, sizeof ser, &len, err);
    *crc = fc_crc32c(0, ser, len);
    return rc;
}

static int tao_parse(const void *data, size_t len, fc_error *err)
{
    return taobao_user_parse(&tao, data, len, err);
}

static int tao_digest(uint32_t *crc, fc_error *err)
{
    size_t len = 0;
    int rc = taobao_user_serialize(&tao, FC_WRITE_DEFAULTS, ser, sizeof ser, &len, err);
    uint32_t c = fc_crc32c(0, ser, len);
    size_t i;
    for (i = 0; i < tao.poi_count && i < TAOBAO_USER_POI_MAX; i++)
        c = fc_crc32c(c, &tao.poi_bucket[i], sizeof tao.poi_bucket[i]);
    c = fc_crc32c(c, &tao.city_bucket, sizeof tao.city_bucket);
    c = fc_crc32c(c, tao.poi_hot, sizeof tao.poi_hot);
    *crc = c;
    return rc;
}

static void run_file(const char *name, const unsigned char *file, size_t len, parse_fn parse,
                     digest_fn digest)
{
    fc_reader r;
    fc_record rec;
    fc_error err;
    int st;
    if (fc_reader_init_mem(&r, file, len, NULL, &err) != FC_OK) {
        out_str(name);
        out_str(": reader init");
        out_error(&err);
        return;
    }
    while ((st = fc_reader_next(&r, &rec)) == FC_OK) {
        int rc = parse(rec.data, rec.length, &err);
        out_str(name);
        out_str(" ");
        out_u64(rec.index);
        out_str(" at ");
        out_u64(rec.offset);
        if (rc == FC_OK) {
            uint32_t crc = 0;
            rc = digest(&crc, &err);
            out_str(rc == FC_OK ? ": ok " : ": serialize failed ");
            out_hex32(crc);
            if (rc != FC_OK)
                out_error(&err);
            else
                out_str("\n");
        } else {
            out_str(": parse");
            out_error(&err);
        }
    }
    out_str(name);
    out_str(": reader ");
    out_u64(fc_reader_count(&r));
    out_str(" records,");
    if (st == FC_END)
        out_str(" end\n");
    else
        out_error(fc_reader_error(&r));
}

int emb_run(void)
{
    run_file("tutorial", emb_tutorial_file, emb_tutorial_file_len, tut_parse, tut_digest);
    run_file("taobao", emb_taobao_file, emb_taobao_file_len, tao_parse, tao_digest);
    return 0;
}
