/* Opening TFRecord inputs for the command-line tools: see fc_input.h. */
#include "featc/fc_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INITIAL_BUFFER (256u * 1024u)
#define WORK_SIZE (FC_INFLATE_ARENA_SIZE + 256u * 1024u)
#define DEFAULT_MAX_RECORD ((size_t)1 << 30)

static fc_status open_error(fc_input *in, fc_status status, const char *what, int errnum)
{
    fc_msg m = fc_error_begin(&in->err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    if (errnum != 0) {
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, strerror(errnum));
    }
    in->err.sys_errno = errnum;
    return status;
}

fc_status fc_input_open(fc_input *in, const char *path, const fc_input_options *opt)
{
    fc_reader_options ro;
    struct stat st;
    fc_status s;
    memset(in, 0, sizeof *in);
    fc_error_clear(&in->err);
    in->path = path;
    in->fd = -1;
    in->max_record_size = opt->max_record_size != 0 ? opt->max_record_size : DEFAULT_MAX_RECORD;
    memset(&ro, 0, sizeof ro);
    ro.compression = opt->compression;
    ro.crc_policy = opt->crc_policy;

    if (strcmp(path, "-") == 0) {
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0)
            return open_error(in, FC_ERR_IO, "cannot open", errno);
        in->own_fd = 1;
    }
    if (fstat(in->fd, &st) != 0)
        return open_error(in, FC_ERR_IO, "cannot stat", errno);
    if (S_ISDIR(st.st_mode))
        return open_error(in, FC_ERR_IO, "is a directory", 0);

    in->work = malloc(WORK_SIZE);
    in->buf = (unsigned char *)malloc(INITIAL_BUFFER);
    if (in->work == NULL || in->buf == NULL)
        return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
    in->cap = INITIAL_BUFFER;
    ro.buffer = in->buf;
    ro.buffer_size = in->cap;
    ro.work = in->work;
    ro.work_size = WORK_SIZE;

    if (S_ISREG(st.st_mode) && in->own_fd) {
        s = fc_map_file(path, &in->map, &in->err);
        if (s != FC_OK)
            return s;
        s = fc_reader_init_mem(&in->reader, in->map.data, in->map.size, &ro, &in->err);
    } else {
        s = fc_reader_init_fd(&in->reader, in->fd, &ro, &in->err);
    }
    return s;
}

/* TensorFlow's "record size too large", with the record and the limit. */
static fc_status too_large(fc_input *in, uint64_t record, uint64_t offset, uint64_t size)
{
    fc_msg m = fc_error_begin(&in->err, FC_ERR_TOO_LARGE, record, offset);
    fc_msg_str(&m, "record size too large: record ");
    fc_msg_u64(&m, record);
    fc_msg_str(&m, " at offset ");
    fc_msg_u64(&m, offset);
    fc_msg_str(&m, " declares ");
    fc_msg_u64(&m, size);
    fc_msg_str(&m, " bytes, more than --max-record-size (");
    fc_msg_u64(&m, in->max_record_size);
    fc_msg_str(&m, ")");
    return FC_ERR_TOO_LARGE;
}

fc_status fc_input_next(fc_input *in, fc_record *rec)
{
    for (;;) {
        fc_status s = fc_reader_next(&in->reader, rec);
        size_t need;
        unsigned char *bigger;
        /* the limit holds for every record, whether it came from a mapped
         * file, a stream or a decompressor, and whether or not it fitted in
         * the buffer already there */
        if (s == FC_OK && rec->length > in->max_record_size)
            return too_large(in, rec->index, rec->offset, rec->length);
        if (s != FC_ERR_BUFFER) {
            if (s != FC_OK && s != FC_END)
                in->err = *fc_reader_error(&in->reader);
            return s;
        }
        need = fc_reader_needed(&in->reader);
        if (need < FC_RECORD_OVERHEAD || need - FC_RECORD_OVERHEAD > in->max_record_size) {
            const fc_error *e = fc_reader_error(&in->reader);
            return too_large(in, e->record, e->offset, need - FC_RECORD_OVERHEAD);
        }
        bigger = (unsigned char *)malloc(need);
        if (bigger == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory for a large record", 0);
        if (fc_reader_set_buffer(&in->reader, bigger, need) != FC_OK) {
            free(bigger);
            return open_error(in, FC_ERR_ARG, "cannot switch the reader to a larger buffer", 0);
        }
        free(in->buf);
        in->buf = bigger;
        in->cap = need;
    }
}

void fc_input_close(fc_input *in)
{
    fc_unmap_file(&in->map);
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    in->fd = -1;
    free(in->buf);
    free(in->work);
    in->buf = NULL;
    in->work = NULL;
}

int fc_input_parse_compression(const char *s, fc_compression *out)
{
    return fc_compression_parse(s, out) == FC_OK ? 0 : -1;
}

int fc_input_parse_crc(const char *s, fc_crc_policy *out)
{
    if (strcmp(s, "verify") == 0)
        *out = FC_CRC_VERIFY;
    else if (strcmp(s, "skip") == 0)
        *out = FC_CRC_SKIP_CORRUPT;
    else if (strcmp(s, "none") == 0)
        *out = FC_CRC_NONE;
    else
        return -1;
    return 0;
}

int fc_input_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    unsigned long long mult = 1;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1024ull, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1024ull * 1024ull, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1024ull * 1024ull * 1024ull, end++;
    if (*end != '\0' || v > (unsigned long long)SIZE_MAX / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}
