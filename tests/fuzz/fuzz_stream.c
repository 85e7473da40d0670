/* libFuzzer harness for the push reader (fc_stream).
 *
 * The first input byte chooses the compression (its low two bits, as
 * fuzz_reader's seeds) and seeds the piece sizes (the rest of it); the
 * rest is the file.  The file pushed in those pieces must give what
 * fc_reader gives over it in memory: the same records (index, offset,
 * bytes), the same end, the same message, offset and record.  The one
 * difference allowed: a record longer than the stream's buffer is
 * FC_ERR_BUFFER at its header, where the memory reader, which needs no
 * buffer, reads on; the buffer is larger than the input, so that record
 * cannot be whole in it and the memory reader must fail there too. */
#include <featc/fc.h>

#include <stdlib.h>
#include <string.h>

#include "../unit/stream_check.h"

static unsigned char work[FC_STREAM_WORK_SIZE];

static unsigned long long rng;

static size_t piece(void *st)
{
    (void)st;
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    switch ((rng >> 60) & 3u) {
    case 0: return 1;
    case 1: return 1 + (size_t)((rng >> 33) % 16u);
    case 2: return 1 + (size_t)((rng >> 33) % 4096u);
    default: return (size_t)-1; /* the rest at once */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sc_outcome want, got;
    unsigned char *buf;
    size_t cap;
    fc_compression c;
    if (size == 0)
        return 0;
    c = (fc_compression)(data[0] & 3u);
    rng = data[0] >> 2;
    data++;
    size--;
    cap = size + FC_RECORD_OVERHEAD + FC_READER_MIN_BUFFER;
    buf = (unsigned char *)malloc(cap);
    if (buf == NULL)
        return 0;
    sc_read_mem(data, size, c, buf, cap, work, sizeof work, &want);
    sc_read_pushed(data, size, c, buf, cap, work, sizeof work, piece, NULL, &got);
    free(buf);
    if (got.status == FC_ERR_BUFFER) {
        if (got.records != want.records || got.digest != want.digest || want.status == FC_END)
            abort();
        return 0;
    }
    if (!sc_same(&want, &got))
        abort();
    return 0;
}
