/* libFuzzer harness for the TFRecord reader.
 *
 * The first input byte chooses the configuration (compression, CRC policy,
 * buffer size); the rest is the file.  Every record returned must lie inside
 * the reader's memory, a stream must end with FC_END or an error with a
 * message, and an FC_ERR_BUFFER must name a size that then works.  With
 * the high bit of that byte, a compressed stream is also read with each
 * inflater (ISA-L where the build has it, and zlib): the same records, the
 * same end, the same message; and as a file through fc_input, inflated on
 * one thread and ahead on another (inflate_ahead): the same again. */
#include <featc/fc.h>
#include <featc/fc_input.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char work[FC_READER_WORK_SIZE];
static unsigned char small_buf[256];

/* What one reader makes of the input, with a 1 MiB record buffer. */
typedef struct {
    int status;
    size_t records;
    uint32_t digest;
    uint64_t offset, record;
    char message[sizeof ((fc_error *)0)->message];
} outcome;

static void read_with(const uint8_t *data, size_t size, fc_compression c, size_t work_size,
                      outcome *out)
{
    static unsigned char buf[1u << 20];
    fc_reader_options o;
    fc_reader r;
    fc_record rec;
    memset(out, 0, sizeof *out);
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.buffer = buf;
    o.buffer_size = sizeof buf;
    o.work = work;
    o.work_size = work_size;
    out->status = fc_reader_init_mem(&r, data, size, &o, NULL);
    if (out->status != FC_OK)
        return;
    while ((out->status = fc_reader_next(&r, &rec)) == FC_OK) {
        out->records++;
        out->digest = fc_crc32c(out->digest, rec.data, rec.length) + (uint32_t)rec.length;
    }
    if (out->status != FC_END) {
        const fc_error *e = fc_reader_error(&r);
        memcpy(out->message, e->message, sizeof out->message);
        out->offset = e->offset;
        out->record = e->record;
    }
}

/* Both inflaters on the same compressed input.  Where zlib refuses a
 * Huffman code set (incomplete or over-subscribed) the two may differ:
 * ISA-L does not check the sets, so it reads such a block, and what
 * featc reports then depends on what the block decodes to (docs/semantics.md,
 * the table of differences).  Those inputs are not compared. */
static void same_on_both_inflaters(const uint8_t *data, size_t size, fc_compression c)
{
    static outcome a, b;
    read_with(data, size, c, FC_READER_WORK_SIZE, &a);
    read_with(data, size, c, FC_INFLATE_ARENA_MIN, &b);
    if (strstr(b.message, "lengths set") != NULL || strstr(b.message, "distances set") != NULL)
        return;
    if (a.status != b.status || a.records != b.records || a.digest != b.digest ||
        a.offset != b.offset || a.record != b.record || strcmp(a.message, b.message) != 0)
        abort();
}

/* What fc_input makes of the file at path, inflated ahead or not. */
static void input_read(const char *path, int ahead, outcome *out)
{
    fc_input_options o;
    fc_input in;
    fc_record rec;
    memset(out, 0, sizeof *out);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    o.max_record_size = 1u << 20;
    o.inflate_ahead = ahead;
    out->status = fc_input_open(&in, path, &o);
    while (out->status == FC_OK && (out->status = fc_input_next(&in, &rec)) == FC_OK) {
        out->records++;
        out->digest = fc_crc32c(out->digest, rec.data, rec.length) + (uint32_t)rec.length;
        out->offset = rec.offset;
    }
    if (out->status != FC_END) {
        memcpy(out->message, in.err.message, sizeof out->message);
        out->offset = in.err.offset;
        out->record = in.err.record;
    }
    fc_input_close(&in);
}

static void same_ahead(const uint8_t *data, size_t size)
{
    static outcome a, b;
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/fuzz_reader-%d.gz", (int)getpid());
    f = fopen(path, "wb");
    if (f == NULL)
        return;
    if (fwrite(data, 1, size, f) != size) {
        fclose(f);
        return;
    }
    fclose(f);
    input_read(path, 0, &a);
    input_read(path, 1, &b);
    remove(path);
    if (a.status != b.status || a.records != b.records || a.digest != b.digest ||
        a.offset != b.offset || a.record != b.record || strcmp(a.message, b.message) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fc_reader_options o;
    fc_reader r;
    fc_record rec;
    unsigned char *big = NULL;
    int s;
    unsigned mode;
    size_t records = 0;
    if (size == 0)
        return 0;
    mode = data[0];
    data++;
    size--;
    memset(&o, 0, sizeof o);
    o.compression = (fc_compression)(mode & 3);
    o.crc_policy = (fc_crc_policy)((mode >> 2) % 3);
    o.buffer = small_buf;
    o.buffer_size = (mode & 0x40) ? 64 : sizeof small_buf;
    o.work = work;
    o.work_size = sizeof work;
    if (fc_reader_init_mem(&r, data, size, &o, NULL) != FC_OK)
        return 0;
    for (;;) {
        s = fc_reader_next(&r, &rec);
        if (s == FC_ERR_BUFFER) {
            size_t need = fc_reader_needed(&r);
            if (need == 0 || need > (1u << 20))
                break; /* hostile length: stop, as a caller with a cap would */
            {
                /* the old buffer must stay valid until the unread bytes are copied */
                unsigned char *nb = (unsigned char *)malloc(need);
                if (fc_reader_set_buffer(&r, nb, need) != FC_OK)
                    abort();
                free(big);
                big = nb;
            }
            continue;
        }
        if (s != FC_OK)
            break;
        records++;
        /* A zero-copy record lies inside the input. */
        if (fc_reader_compression(&r) == FC_COMPRESSION_NONE &&
            (rec.data < data || rec.data + rec.length > data + size))
            abort();
        if (rec.length > 0)
            (void)fc_crc32c(0, rec.data, rec.length); /* touch every byte */
    }
    if (s != FC_END && s != FC_ERR_BUFFER && fc_reader_error(&r)->message[0] == '\0')
        abort(); /* every error explains itself */
    if (s != FC_END && fc_reader_next(&r, &rec) != s && s != FC_ERR_BUFFER)
        abort(); /* errors are sticky */
    (void)records;
    free(big);
    if ((mode & 0x80) && o.compression != FC_COMPRESSION_NONE) {
        same_on_both_inflaters(data, size, o.compression);
        same_ahead(data, size);
    }
    return 0;
}
