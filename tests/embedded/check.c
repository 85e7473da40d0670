/* The embedded test: the generated tutorial and taobao parsers and
 * serializers, over the memory reader, in a program that needs nothing of
 * a C library but memcpy, memset, memcmp and memmove (tests/embedded/run.sh
 * links it -nostdlib for Cortex-M4 and runs it under qemu-arm).  The same
 * source built for the host prints the same lines: one per record (its
 * index, offset, parse status, a CRC-32C of what it serializes back to and
 * of the hash buckets, and the error text), then the reader's last status;
 * then whether the push reader, fed each file in pieces, gives the reader's
 * records and end.  Nothing here allocates; output goes through emb_write,
 * the port's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <featc/fc_crc32c.h>
#include <featc/fc_record.h>

#include "../unit/stream_check.h"
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

/* The push reader (fc_stream) over the same file in pieces of 1 byte, of
 * 1-37 and 1-512 bytes, and whole: the reader's records and end. */
static unsigned char push_buf[16 * 1024];
static uint32_t push_rng, push_most;

static size_t push_piece(void *st)
{
    (void)st;
    if (push_most <= 1)
        return push_most == 0 ? (size_t)-1 : 1;
    push_rng = push_rng * 1103515245u + 12345u;
    return 1 + (size_t)((push_rng >> 8) % push_most);
}

static void run_pushed(const char *name, const unsigned char *file, size_t len)
{
    static const uint32_t most[4] = {1, 37, 512, 0};
    static sc_outcome want, got;
    unsigned k;
    sc_read_mem(file, len, FC_COMPRESSION_NONE, NULL, 0, NULL, 0, &want);
    for (k = 0; k < 4; k++) {
        push_rng = 7;
        push_most = most[k];
        sc_read_pushed(file, len, FC_COMPRESSION_NONE, push_buf, sizeof push_buf, NULL, 0,
                       push_piece, NULL, &got);
        out_str(name);
        out_str(k == 0   ? " pushed in pieces of 1 byte: "
                : k == 1 ? " pushed in pieces of 1-37 bytes: "
                : k == 2 ? " pushed in pieces of 1-512 bytes: "
                         : " pushed in one piece: ");
        out_u64(got.records);
        out_str(sc_same(&want, &got) ? " records, the reader's\n" : " records, NOT the reader's\n");
    }
}

int emb_run(void)
{
    run_file("tutorial", emb_tutorial_file, emb_tutorial_file_len, tut_parse, tut_digest);
    run_file("taobao", emb_taobao_file, emb_taobao_file_len, tao_parse, tao_digest);
    run_pushed("tutorial", emb_tutorial_file, emb_tutorial_file_len);
    run_pushed("taobao", emb_taobao_file, emb_taobao_file_len);
    return 0;
}
