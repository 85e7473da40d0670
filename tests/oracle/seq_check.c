/* Generated SequenceExample parser vs the protobuf-c oracle, for one
 * generated message.  Built per spec with -include SPEC.h
 * -DDESC=<type>_desc.
 *
 *   seq_check corpus NAME FILE...     every record of the files
 *   seq_check random NAME SEED COUNT  COUNT random records (often invalid)
 *
 * Both must accept or both reject; when both accept, the JSON of the
 * context and of the feature lists and the presence bits must be equal.
 * Prints "NAME: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_check.h"
#include "check_files.h"

#include "seq_oracle.h"

#include <featc/fc_hash.h>

#ifndef DESC
#error "build with -DDESC=<generated message>_desc"
#endif

static const fc_seq_desc *sd = &DESC;
static unsigned char *msg_a, *msg_b;
static char json_a[1 << 20], json_b[1 << 20];
static long passed, failed, accepted;

static void roundtrip(const unsigned char *x, const char *where);

/* The bucket ids of hashed VarLen lists: an id per value, each the hash of
 * that value (sequence_categorical_column_with_hash_bucket). */
static int list_buckets_ok(const unsigned char *m)
{
    size_t j, t, k;
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t nb = l->extra != NULL ? l->extra->hash_buckets : 0, frames;
        if (nb == 0)
            continue;
        memcpy(&frames, m + l->frames_offset, sizeof frames);
        for (t = 0; t < frames; t++) {
            size_t n;
            memcpy(&n, m + l->count_offset + t * sizeof n, sizeof n);
            for (k = 0; k < n; k++) {
                const unsigned char *v = m + l->value_offset + (t * l->max + k) * fc_type_size(l->type);
                int64_t id, want;
                memcpy(&id, m + l->extra->bucket_offset + (t * l->max + k) * 8, 8);
                if (l->type == FC_TYPE_BYTES) {
                    fc_bytes b;
                    memcpy(&b, v, sizeof b);
                    want = fc_hash_bucket(b.data, b.size, nb);
                } else {
                    int64_t x;
                    memcpy(&x, v, 8);
                    want = fc_hash_bucket_int64(x, nb);
                }
                if (id != want)
                    return 0;
            }
        }
    }
    return 1;
}

static void compare(const void *data, size_t len, const char *where)
{
    fc_error err;
    int ra = sd->parse(msg_a, data, len, &err);
    int rb = seq_oracle_parse(sd, msg_b, data, len);
    bc_add(data, len, ra == FC_OK);
    if (ra != rb) {
        if (failed < 10) {
            size_t i;
            fprintf(stderr, "%s: generated %s, oracle %s", where,
                    ra == FC_OK ? "accepts" : "rejects", rb == FC_OK ? "accepts" : "rejects");
            if (ra != FC_OK)
                fprintf(stderr, " (%s)", err.message);
            fprintf(stderr, "\n  record:");
            for (i = 0; i < len && i < 300; i++)
                fprintf(stderr, "%02x", ((const unsigned char *)data)[i]);
            fprintf(stderr, "\n");
        }
        failed++;
        return;
    }
    if (ra == FC_OK) {
        seq_oracle_json(sd, msg_a, json_a, sizeof json_a);
        seq_oracle_json(sd, msg_b, json_b, sizeof json_b);
        if (strcmp(json_a, json_b) != 0 || !list_buckets_ok(msg_a) ||
            memcmp(msg_a + sd->present_offset, msg_b + sd->present_offset,
                   ((sd->ncontext + sd->nlists + 31) / 32) * sizeof(uint32_t)) != 0) {
            if (failed < 10)
                fprintf(stderr, "%s: values differ\n  generated %s\n  oracle    %s\n", where,
                        json_a, json_b);
            failed++;
            return;
        }
        accepted++;
    } else if (strstr(err.message, "internal error") != NULL) {
        fprintf(stderr, "%s: %s\n", where, err.message);
        failed++;
        return;
    }
    if (ra == FC_OK)
        roundtrip(msg_a, where);
    passed++;
}

/* ------------------------------------------------------------ random records */

static unsigned long long rng;
static unsigned long long rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#include "random_record.h"
#include "roundtrip.h"

/* The serializer on every accepted record (roundtrip.h). */
static void roundtrip(const unsigned char *x, const char *where)
{
    rt_check(sd, 1, x, where);
}

/* Set for about a third of the records: only valid choices, so that many
 * records are accepted and their values compared. */
static int clean;

static fc_type other_type(fc_type t)
{
    return (fc_type)(1 + (t + below(2)) % 3);
}

/* RaggedFeatures mostly get values that fit (random_record.h, rr_ragged):
 * a plan per context field or list they read, the same in every frame of a
 * list: the value count, or the partition's values, frame by frame. */
#define PLAN_FRAMES 8
typedef struct plan {
    size_t frames;            /* lists: frames; context: 1 */
    int ints;                 /* the values below, else a count of random values */
    size_t n[PLAN_FRAMES];
    int64_t v[PLAN_FRAMES][257];
} plan;
static plan plans[32];
static size_t nplans, cplan[4096], lplan[4096]; /* field or list -> plan, or (size_t)-1 */

static size_t *plan_slot(int list, size_t i)
{
    return list ? &lplan[i] : &cplan[i];
}

/* Plans for RaggedFeature x (at most max values a frame) over `frames`
 * frames, unless a field it reads has a plan already. */
static void plan_ragged(int list, const fc_field_extra *x, size_t max, size_t frames)
{
    static int64_t vals[FC_MAX_RANK][257];
    size_t nv[FC_MAX_RANK], t, slot[FC_MAX_RANK + 1], need = 1;
    unsigned q;
    if (*plan_slot(list, x->sparse_fields[0]) != (size_t)-1 || x->sparse_fields[0] >= 4096)
        return;
    for (q = 0; q < x->nparts; q++) {
        if (x->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        if (x->parts[q].field >= 4096 || *plan_slot(list, x->parts[q].field) != (size_t)-1)
            return;
        need++;
    }
    if (nplans + need > 32)
        return;
    slot[0] = nplans++;
    plans[slot[0]].ints = 0;
    plans[slot[0]].frames = frames;
    *plan_slot(list, x->sparse_fields[0]) = slot[0];
    for (q = 0; q < x->nparts; q++) {
        if (x->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        slot[q + 1] = nplans++;
        plans[slot[q + 1]].ints = 1;
        plans[slot[q + 1]].frames = frames;
        *plan_slot(list, x->parts[q].field) = slot[q + 1];
    }
    for (t = 0; t < frames; t++) {
        plans[slot[0]].n[t] = rr_ragged(x, max, vals, nv);
        for (q = 0; q < x->nparts; q++)
            if (x->parts[q].kind != FC_PART_UNIFORM_ROW_LENGTH) {
                plans[slot[q + 1]].n[t] = nv[q];
                memcpy(plans[slot[q + 1]].v[t], vals[q], nv[q] * sizeof(int64_t));
            }
    }
}

/* Frame t of a plan into f. */
static void plan_frame(const plan *pl, fc_type type, size_t t, wbuf *f)
{
    f->n = 0;
    if (pl->ints)
        f_int64_packed(f, pl->v[t], pl->n[t]);
    else
        rnd_feature(f, type, pl->n[t]);
}

/* A context Feature for fd: absent (0), or its body in f (1). */
static int rnd_context(const fc_field_desc *fd, wbuf *f)
{
    size_t r = below(20), n, i = (size_t)(fd - sd->context);
    f->n = 0;
    if (i < 4096 && cplan[i] != (size_t)-1) {
        plan_frame(&plans[cplan[i]], fd->type, 0, f);
        return 1;
    }
    if (clean) {
        if (fd->kind == FC_KIND_VARLEN && r < 4)
            return r < 2 ? 0 : 1; /* absent, or Feature{} */
        if (fd->kind == FC_KIND_FIXED && fd->default_value != NULL && r < 4)
            return 0;
        rr_as = fd->extra != NULL ? fd->extra->as : NULL;
        rnd_feature(f, fd->type, fd->kind == FC_KIND_FIXED ? fd->elems : below(fd->max + 1));
        rr_as = NULL;
        return 1;
    }
    if (r < 3)
        return 0;
    if (r < 5)
        return 1; /* Feature{} */
    if (r < 6) {
        rnd_feature(f, other_type(fd->type), below(3));
        return 1;
    }
    if (fd->kind == FC_KIND_FIXED) {
        n = fd->elems;
        if (below(8) == 0)
            n = n + 1;
        else if (below(8) == 0 && n > 0)
            n = n - 1;
    } else {
        n = below(8) == 0 ? fd->max + 1 : below(fd->max + 1);
    }
    rr_as = fd->extra != NULL ? fd->extra->as : NULL;
    rnd_feature(f, fd->type, n > 4000 ? 4000 : n);
    rr_as = NULL;
    return 1;
}

/* the frame count of every list in a clean record of an aligned spec */
static size_t aligned_frames;

/* A FeatureList for l: absent (0), or its body in fl (1). */
static int rnd_list(const fc_list_desc *l, wbuf *fl)
{
    static wbuf f;
    size_t r = below(20), frames, t, uniform_n = below(l->max + 1), j = (size_t)(l - sd->lists);
    fl->n = 0;
    if (j < 4096 && lplan[j] != (size_t)-1) {
        const plan *pl = &plans[lplan[j]];
        for (t = 0; t < pl->frames; t++) {
            plan_frame(pl, l->type, t, &f);
            w_len(fl, 0x0A, f.b, f.n);
        }
        return 1;
    }
    if (clean && r < 2 && (l->kind == FC_KIND_VARLEN || l->allow_missing))
        return 0;
    if (!clean && r < 2)
        return 0;
    if (r < 3)
        return 1; /* present, no frames */
    frames = below(8) == 0 && !clean ? l->max_frames + 1 : below(l->max_frames + 1);
    if (frames > 64)
        frames = below(64);
    if (clean && sd->aligned)
        frames = aligned_frames;
    for (t = 0; t < frames; t++) {
        size_t q = clean ? 99 : below(30), n;
        f.n = 0;
        if (clean) {
            n = l->kind == FC_KIND_FIXED ? l->elems : l->uniform ? uniform_n : below(l->max + 1);
            rr_as = l->extra != NULL ? l->extra->as : NULL; /* typed frames mostly fit */
            rnd_feature(&f, l->type, n);
            rr_as = NULL;
        } else if (q == 0) {
            /* Feature{}: an empty frame */
        } else if (q == 1) { /* an empty list of a random type */
            w_byte(&f, below(2) ? (l->type == FC_TYPE_BYTES ? 0x0A : l->type == FC_TYPE_FLOAT ? 0x12 : 0x1A)
                                : 0x12);
            w_byte(&f, 0x00);
        } else if (q == 2) {
            rnd_feature(&f, other_type(l->type), below(3));
        } else {
            /* (no 1-byte frames: invalid protobuf, which TensorFlow never
             * reads when a later entry of the key overrides this one; the
             * behaviour tests cover them) */
            if (l->kind == FC_KIND_FIXED)
                n = below(10) == 0 ? l->elems + below(3) - 1 + (l->elems == 0) : l->elems;
            else if (l->uniform && below(6) != 0)
                n = uniform_n;
            else
                n = below(10) == 0 ? l->max + 1 : below(l->max + 1);
            rr_as = l->extra != NULL ? l->extra->as : NULL;
            rnd_feature(&f, l->type, n > 4000 ? 4000 : n);
            rr_as = NULL;
        }
        w_len(fl, 0x0A, f.b, f.n);
    }
    return 1;
}

static wbuf ctx_blocks[2], list_blocks[2], fbuf;

static void random_seq_record(wbuf *ex)
{
    size_t i, d;
    ctx_blocks[0].n = ctx_blocks[1].n = list_blocks[0].n = list_blocks[1].n = 0;
    clean = below(3) == 0;
    rr_packed_only = clean && below(2) == 0;
    aligned_frames = below(5);
    for (i = 0; i < 4096; i++)
        cplan[i] = lplan[i] = (size_t)-1;
    nplans = 0;
    for (i = 0; i < sd->ncontext; i++)
        if (sd->context[i].kind == FC_KIND_RAGGED && below(4) != 0)
            plan_ragged(0, sd->context[i].extra, sd->context[i].max, 1);
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        size_t most = l->max_frames < PLAN_FRAMES ? l->max_frames : PLAN_FRAMES;
        if (l->kind == FC_KIND_RAGGED && below(4) != 0)
            plan_ragged(1, l->extra, l->max,
                        clean && sd->aligned && aligned_frames <= most ? aligned_frames
                                                                       : below(most + 1));
    }
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *fd = &sd->context[i];
        size_t dup = below(10) == 0 && (i >= 4096 || cplan[i] == (size_t)-1) ? 2 : 1;
        if (fd->kind == FC_KIND_RAGGED)
            continue; /* no key of its own: the fields it reads have them */
        for (d = 0; d < dup; d++)
            if (rnd_context(fd, &fbuf)) {
                wbuf *b = &ctx_blocks[below(4) == 0];
                wbuf e;
                e.n = 0;
                w_len(&e, 0x0A, fd->key, fd->key_len);
                w_len(&e, 0x12, fbuf.b, fbuf.n);
                w_len(b, 0x0A, e.b, e.n);
            }
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        size_t dup = below(10) == 0 && (i >= 4096 || lplan[i] == (size_t)-1) ? 2 : 1;
        if (l->kind == FC_KIND_RAGGED)
            continue;
        for (d = 0; d < dup; d++)
            if (rnd_list(l, &fbuf)) {
                wbuf *b = &list_blocks[below(4) == 0];
                static wbuf e;
                e.n = 0;
                w_len(&e, 0x0A, l->key, l->key_len);
                w_len(&e, 0x12, fbuf.b, fbuf.n);
                w_len(b, 0x0A, e.b, e.n);
            }
    }
    /* keys the spec does not name */
    for (i = below(3); i > 0; i--) {
        wbuf e;
        char key[16];
        int kl = snprintf(key, sizeof key, "other_%u", (unsigned)below(5));
        e.n = 0;
        rnd_feature(&fbuf, (fc_type)(1 + below(3)), below(4));
        w_len(&e, 0x0A, key, (size_t)kl);
        w_len(&e, 0x12, fbuf.b, fbuf.n);
        w_len(&ctx_blocks[0], 0x0A, e.b, e.n);
    }
    ex->n = 0;
    if (below(10) == 0) {
        w_byte(ex, 0x18);
        w_varint(ex, rnd());
    }
    /* blocks in a random order; empty second blocks are left out */
    for (i = 0; i < 4; i++) {
        size_t k = (i + (size_t)below(2) * 2) % 4;
        wbuf *b = k < 2 ? &ctx_blocks[k] : &list_blocks[k - 2];
        if (b->n == 0 && (k % 2 == 1 || below(3) == 0))
            continue;
        w_len(ex, k < 2 ? 0x0A : 0x12, b->b, b->n);
    }
    if (!clean && below(12) == 0 && ex->n > 0)
        ex->n = below(ex->n);
}

int main(int argc, char **argv)
{
    const char *name;
    long bad;
    msg_a = (unsigned char *)calloc(1, sd->size);
    msg_b = (unsigned char *)calloc(1, sd->size);
    if (msg_a == NULL || msg_b == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 2;
    }
    bc_init_seq(sd);
    bad = check_run(argc, argv, "seq_check", compare, random_seq_record, &rng, 7);
    if (bad < 0)
        return 64;
    name = argv[2];
    failed += bad;
    if (strcmp(argv[1], "random") == 0)
        rt_random_structs(sd, 1, atol(argv[4]) / 4);
    if (rt_out != NULL)
        fclose(rt_out);
    printf("roundtrip-%s: %ld passed, %ld failed\n", name, rt_passed, rt_failed);
    fprintf(stderr, "%s: %ld records accepted by both\n", name, accepted);
    bc_finish(name);
    printf("%s: %ld passed, %ld failed\n", name, passed, failed);
    free(msg_a);
    free(msg_b);
    return failed == 0 && bc_failed == 0 && rt_failed == 0 ? 0 : 1;
}
