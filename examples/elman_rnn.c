/* A tiny recurrent model fed through the segment batcher: the plain-C version
 * of TensorFlow's batch_sequences_with_states + state_saving_rnn.
 *
 * 1. Writes OUTDIR/clips.tfrecord (GZIP): 23 SequenceExamples (specs/elman.feat),
 *    each a clip with an id, a label and 1 to 60 steps of 3 inputs.
 * 2. Reads the file back and inserts every record into the batcher generated
 *    from the spec's `segments` block (8 steps per segment, 4 segments per
 *    batch, 8 clips in flight, the hidden state h carried across segments).
 * 3. Runs an Elman RNN, h' = tanh(b + Wx x + Wh h), over each batch's valid
 *    steps, saves h, and when a clip's last segment is done scores it with
 *    p = sigmoid(v . h) and the cross-entropy against its label.
 * 4. Runs the same RNN over every whole clip at once and checks that the
 *    segmented final states are the same, bit for bit.
 *
 * No malloc anywhere: the batcher is one static struct.
 * usage: elman_rnn OUTDIR
 */
#include <featc/fc.h>

#include "elman.h" /* generated: featc compile specs/elman.feat */

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCLIPS 23
#define HID ELMAN_CLIP_STATE_H_SIZE
#define NIN ELMAN_CLIP_X_DIM0

/* ---- the model */

static float Wx[HID][NIN], Wh[HID][HID], bias[HID], v_out[HID];

static void model_init(void)
{
    size_t i, j;
    for (i = 0; i < HID; i++) {
        for (j = 0; j < NIN; j++)
            Wx[i][j] = (float)((int)((i * 7 + j * 3) % 11) - 5) / 8.0f;
        for (j = 0; j < HID; j++)
            Wh[i][j] = (float)((int)((i * 5 + j * 2) % 9) - 4) / 12.0f;
        bias[i] = (float)((int)(i % 3) - 1) / 10.0f;
        v_out[i] = (float)((int)(i % 4) - 1) / 2.0f;
    }
}

static void rnn_step(float h[HID], const float x[NIN])
{
    float a[HID];
    size_t i, j;
    for (i = 0; i < HID; i++) {
        float s = bias[i];
        for (j = 0; j < NIN; j++)
            s += Wx[i][j] * x[j];
        for (j = 0; j < HID; j++)
            s += Wh[i][j] * h[j];
        a[i] = tanhf(s);
    }
    memcpy(h, a, sizeof a);
}

static float score(const float h[HID])
{
    float s = 0;
    size_t i;
    for (i = 0; i < HID; i++)
        s += v_out[i] * h[i];
    return 1.0f / (1.0f + expf(-s));
}

/* ---- the data */

static size_t clip_steps(int c)
{
    return (size_t)(1 + (c * 37) % 60);
}

static float clip_input(int c, size_t t, size_t k)
{
    return sinf((float)(c + 1) * 0.3f * (float)t + (float)k) * (c % 2 ? 1.0f : -1.0f);
}

/* Clip c as the struct featc generated from specs/elman.feat. */
static void fill_clip(int c, elman_clip *m, char id[16])
{
    size_t t, k;
    elman_clip_init(m);
    snprintf(id, 16, "clip-%02d", c);
    m->id.data = (const uint8_t *)id;
    m->id.size = strlen(id);
    m->label = c % 2;
    m->x_frames = clip_steps(c);
    for (t = 0; t < m->x_frames; t++)
        for (k = 0; k < NIN; k++)
            m->x[t][k] = clip_input(c, t, k);
}

static unsigned char writer_work[FC_WRITER_WORK_SIZE], reader_work[FC_READER_WORK_SIZE];
static unsigned char reader_buffer[1 << 16];

static int write_clips(const char *path)
{
    fc_writer_options wo;
    fc_writer w;
    fc_error err;
    static elman_clip m;
    unsigned char rec[4096];
    char id[16];
    int c, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(&wo, 0, sizeof wo);
    wo.compression = FC_COMPRESSION_GZIP;
    wo.work = writer_work;
    wo.work_size = sizeof writer_work;
    if (fc_writer_init_fd(&w, fd, &wo, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        close(fd);
        return 1;
    }
    for (c = 0; c < NCLIPS; c++) {
        fill_clip(c, &m, id);
        /* FC_WRITE_DEFAULTS: the label is written even when it is 0 */
        if (elman_clip_write(&w, &m, FC_WRITE_DEFAULTS, rec, sizeof rec, &err) != FC_OK) {
            fprintf(stderr, "%s: clip %d: %s\n", path, c, err.message);
            break;
        }
    }
    if (fc_writer_close(&w) != FC_OK || close(fd) != 0) {
        fprintf(stderr, "%s: %s\n", path, fc_writer_error(&w)->message);
        return 1;
    }
    printf("wrote %d clips to %s (GZIP)\n", NCLIPS, path);
    return 0;
}

/* ---- training-style loop through the batcher */

static elman_clip_segmenter seg; /* all the batcher's storage */
static float final_h[NCLIPS][HID];
static size_t final_steps[NCLIPS];
static int finished[NCLIPS];
static double loss_sum;
static size_t batches, segments;

static int clip_number(fc_bytes id)
{
    int c = -1;
    if (id.size == 7 && memcmp(id.data, "clip-", 5) == 0)
        c = (id.data[5] - '0') * 10 + (id.data[6] - '0');
    return c >= 0 && c < NCLIPS ? c : -1;
}

/* One batch: the RNN over each segment's valid steps, h saved for the next
 * segment; a clip whose next key is STOP is done. */
static int run_batch(fc_error *err)
{
    elman_clip_segments *b = &seg.batch;
    size_t i, t;
    for (i = 0; i < b->size; i++) {
        for (t = 0; t < b->length[i]; t++)
            rnn_step(b->state.h[i], b->sequences.x[i][t]);
        if (b->next_key[i].size >= 5 && memcmp(b->next_key[i].data, "STOP:", 5) == 0) {
            int c = clip_number(b->context.id[i]);
            float p = score(b->state.h[i]);
            int64_t y = b->context.label[i];
            if (c < 0)
                return 1;
            memcpy(final_h[c], b->state.h[i], sizeof final_h[c]);
            final_steps[c] = b->total_length[i];
            finished[c] = 1;
            loss_sum -= y ? log((double)p) : log(1.0 - (double)p);
            printf("  %-24.*s label %lld, %2zu steps in %zu segments: p = %.4f\n",
                   (int)b->key[i].size, (const char *)b->key[i].data, (long long)y,
                   b->total_length[i], b->sequence_count[i], (double)p);
        }
    }
    batches++;
    segments += b->size;
    return elman_clip_seg_save_h(&seg, &b->state.h[0][0], err) != FC_OK;
}

static int run_file(const char *path)
{
    fc_reader_options ro;
    fc_reader r;
    fc_record rec;
    fc_error err;
    elman_clip scratch;
    int rc, s, fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(&ro, 0, sizeof ro);
    ro.compression = FC_COMPRESSION_AUTO;
    ro.crc_policy = FC_CRC_VERIFY;
    ro.buffer = reader_buffer;
    ro.buffer_size = sizeof reader_buffer;
    ro.work = reader_work;
    ro.work_size = sizeof reader_work;
    if (fc_reader_init_fd(&r, fd, &ro, &err) != FC_OK ||
        elman_clip_seg_init(&seg, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        close(fd);
        return 1;
    }
    printf("segments of %d steps, batches of %d, %d clips in flight:\n",
           ELMAN_CLIP_SEG_NUM_UNROLL, ELMAN_CLIP_SEG_BATCH_SIZE, ELMAN_CLIP_SEG_CAPACITY);
    while ((s = fc_reader_next(&r, &rec)) == FC_OK) {
        /* the clip's id is its key: parse once to read it (the batcher keeps
         * its own copy of the record, so rec may go away after the insert) */
        if (elman_clip_parse(&scratch, rec.data, rec.length, &err) != FC_OK) {
            fprintf(stderr, "%s: skipping a record: %s\n", path, err.message);
            continue;
        }
        while ((rc = elman_clip_seg_insert_record(&seg, scratch.id.data, scratch.id.size,
                                                  rec.data, rec.length, FC_SEG_LENGTH_FRAMES,
                                                  NULL, &err)) == FC_AGAIN) {
            /* capacity reached: train on a batch, which lets clips finish */
            if (elman_clip_seg_next(&seg, &err) != FC_OK || run_batch(&err))
                goto fail;
        }
        if (rc != FC_OK)
            goto fail;
    }
    if (s != FC_END) {
        fprintf(stderr, "%s: %s\n", path, fc_reader_error(&r)->message);
        close(fd);
        return 1;
    }
    close(fd);
    elman_clip_seg_close(&seg);
    while ((rc = elman_clip_seg_next(&seg, &err)) == FC_OK)
        if (run_batch(&err))
            goto fail;
    if (rc != FC_END)
        goto fail;
    printf("%zu batches, %zu segments; mean cross-entropy %.4f over %d clips\n", batches,
           segments, loss_sum / NCLIPS, NCLIPS);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", path, err.message);
    return 1;
}

/* The same RNN over each whole clip: the segmented states must match. */
static int check_whole(void)
{
    int c, same = 0;
    for (c = 0; c < NCLIPS; c++) {
        float h[HID] = {0}, x[NIN];
        size_t t, k;
        for (t = 0; t < clip_steps(c); t++) {
            for (k = 0; k < NIN; k++)
                x[k] = clip_input(c, t, k);
            rnn_step(h, x);
        }
        if (finished[c] && final_steps[c] == clip_steps(c) &&
            memcmp(h, final_h[c], sizeof h) == 0)
            same++;
        else
            fprintf(stderr, "clip-%02d: segmented state differs from the whole-clip state\n", c);
    }
    printf("segmented == whole-clip final state, bit for bit: %d of %d clips\n", same, NCLIPS);
    return same != NCLIPS;
}

int main(int argc, char **argv)
{
    char path[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof path, "%s/clips.tfrecord.gz", argv[1]);
    model_init();
    if (write_clips(path) || run_file(path) || check_whole())
        return 1;
    return 0;
}
