
/* Segments of @@NAME@@ */
static const fc_state_desc @@TYPE@@_state_descs[@@UPPER@@_STATE_COUNT] = {
@@STATE_DESCS@@};

const fc_seg_config @@TYPE@@_seg_config = {
    &@@TYPE@@_desc,
    @@UPPER@@_SEG_NUM_UNROLL,
    @@UPPER@@_SEG_BATCH_SIZE,
    @@UPPER@@_SEG_CAPACITY,
    @@UPPER@@_SEG_KEY_MAX,
    @@UPPER@@_SEG_RECORD_MAX,
    @@ALLOW_SMALL_BATCH@@, /* allow_small_batch */
    @@UNPADDED@@, /* unpadded */
    @@UPPER@@_STATE_COUNT,
    @@TYPE@@_state_descs,
    sizeof(@@TYPE@@_states)
};

int @@TYPE@@_seg_init(@@TYPE@@_segmenter *s, fc_error *err)
{
    fc_seg_mem mem;
    fc_seg_out out;
    memset(&mem, 0, sizeof mem);
    memset(&out, 0, sizeof out);
    memset(&s->batch, 0, sizeof s->batch);
    mem.slots = s->slots;
    mem.examples = s->examples;
    mem.states = s->states;
    mem.keys = &s->keys[0][0];
@@RECORDS_BIND@@
    out.slot = s->batch.slot;
    out.key = s->batch.key;
    out.next_key = s->batch.next_key;
    out.key_text = &s->batch.key_text[0][0][0];
    out.sequence = s->batch.sequence;
    out.sequence_count = s->batch.sequence_count;
    out.length = s->batch.length;
    out.total_length = s->batch.total_length;
    out.insertion_index = s->batch.insertion_index;
@@BIND@@
    out.context = s->columns;
    out.lists = s->columns + @@UPPER@@_CONTEXT_COUNT;
    out.states = s->state_values;
    return fc_seg_init(&s->core, &@@TYPE@@_seg_config, &mem, &out, err);
}

int @@TYPE@@_seg_insert(@@TYPE@@_segmenter *s, const void *key, size_t key_len,
    const @@TYPE@@ *example, size_t length, const @@TYPE@@_states *initial, fc_error *err)
{
    return fc_seg_insert(&s->core, key, key_len, example, length, initial, err);
}

@@INSERT_RECORD_DEF@@
void @@TYPE@@_seg_refresh(@@TYPE@@_segmenter *s)
{
    size_t i;
    s->batch.size = s->core.out.size;
    for (i = 0; i < s->batch.size; i++)
        s->batch.example[i] = &s->examples[s->batch.slot[i]];
}

int @@TYPE@@_seg_next(@@TYPE@@_segmenter *s, fc_error *err)
{
    int rc = fc_seg_next(&s->core, err);
    @@TYPE@@_seg_refresh(s);
    return rc;
}

int @@TYPE@@_seg_save_state(@@TYPE@@_segmenter *s, enum @@TYPE@@_state state,
    const void *values, fc_error *err)
{
    return fc_seg_save_state(&s->core, (size_t)state, values, err);
}

@@SAVE_DEFS@@
void @@TYPE@@_seg_close(@@TYPE@@_segmenter *s)
{
    fc_seg_close(&s->core);
}
