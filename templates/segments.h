
/* Segments of @@NAME@@: TensorFlow's SequenceQueueingStateSaver (see
 * <featc/fc_segment.h>).  Each inserted example is cut into segments of
 * @@UPPER@@_SEG_NUM_UNROLL frames; a batch holds @@UPPER@@_SEG_BATCH_SIZE
 * segments of different examples with their context and states; at most
 * @@UPPER@@_SEG_CAPACITY examples are in flight.  After each batch, save
 * every state (@@TYPE@@_seg_save_state): that makes the next segments ready. */
#define @@UPPER@@_SEG_NUM_UNROLL @@NUM_UNROLL@@
#define @@UPPER@@_SEG_BATCH_SIZE @@BATCH_SIZE@@
#define @@UPPER@@_SEG_CAPACITY @@CAPACITY@@
#define @@UPPER@@_SEG_KEY_MAX @@KEY_MAX@@
#define @@UPPER@@_SEG_RECORD_MAX @@RECORD_MAX@@
#define @@UPPER@@_SEG_KEY_TEXT FC_SEG_KEY_TEXT(@@UPPER@@_SEG_KEY_MAX)
#define @@UPPER@@_STATE_COUNT @@STATE_COUNT@@

/* State numbers, for @@TYPE@@_seg_save_state. */
enum @@TYPE@@_state {
@@STATE_ENUM@@
};
@@STATE_CONSTANTS@@
/* One example's states: what an insert takes as initial values. */
typedef struct @@TYPE@@_states {
@@STATE_MEMBERS@@
} @@TYPE@@_states;

/* A batch of segments (TensorFlow's NextQueuedSequenceBatch): entry i of
 * every array belongs to slot i, and `size` slots are filled
 * (@@UPPER@@_SEG_BATCH_SIZE, or fewer in a final small batch).  Padding
 * frames past an example's end hold zeros. */
typedef struct @@TYPE@@_segments {
    size_t size;
    fc_bytes key[@@UPPER@@_SEG_BATCH_SIZE];      /* "%05d_of_%05d:KEY" */
    fc_bytes next_key[@@UPPER@@_SEG_BATCH_SIZE]; /* the next segment's key, or "STOP:KEY" */
    size_t sequence[@@UPPER@@_SEG_BATCH_SIZE];   /* this segment's index */
    size_t sequence_count[@@UPPER@@_SEG_BATCH_SIZE];
    size_t length[@@UPPER@@_SEG_BATCH_SIZE];     /* valid steps in this segment */
    size_t total_length[@@UPPER@@_SEG_BATCH_SIZE];
    int64_t insertion_index[@@UPPER@@_SEG_BATCH_SIZE];
    /* the whole example, for what the arrays below leave out (hash bucket
     * ids, presence bits) */
    const @@TYPE@@ *example[@@UPPER@@_SEG_BATCH_SIZE];
@@BATCH_MEMBERS@@    /* states as they stood after the previous segment */
    struct {
@@STATE_BATCH_MEMBERS@@    } state;
    char key_text[@@UPPER@@_SEG_BATCH_SIZE][2][@@UPPER@@_SEG_KEY_TEXT];
    size_t slot[@@UPPER@@_SEG_BATCH_SIZE];
} @@TYPE@@_segments;

/* The batcher with all its storage: declare it static (it holds
 * @@UPPER@@_SEG_CAPACITY examples) and set it up with @@TYPE@@_seg_init. */
typedef struct @@TYPE@@_segmenter {
    fc_segmenter core;
    @@TYPE@@_segments batch;   /* the batch @@TYPE@@_seg_next handed out */
    fc_seg_column columns[@@UPPER@@_FIELD_COUNT];
    void *state_values[@@UPPER@@_STATE_COUNT];
    fc_seg_slot slots[@@UPPER@@_SEG_CAPACITY];
    @@TYPE@@_states states[@@UPPER@@_SEG_CAPACITY];
    char keys[@@UPPER@@_SEG_CAPACITY][@@UPPER@@_SEG_KEY_MAX];
    @@TYPE@@ examples[@@UPPER@@_SEG_CAPACITY];
@@RECORDS_MEMBER@@} @@TYPE@@_segmenter;

/* The spec's configuration, for fc_seg_init_block and generic code. */
extern const fc_seg_config @@TYPE@@_seg_config;

/* Sets up s (any previous content is dropped).  Returns FC_OK. */
int @@TYPE@@_seg_init(@@TYPE@@_segmenter *s, fc_error *err);

/* Inserts an example under a unique key (see fc_seg_insert): length is its
 * steps before padding, or FC_SEG_LENGTH_FRAMES; initial may be NULL
 * (zeros).  bytes values must stay valid until the example is finished.
 * FC_AGAIN: capacity reached, take a batch first. */
int @@TYPE@@_seg_insert(@@TYPE@@_segmenter *s, const void *key, size_t key_len,
    const @@TYPE@@ *example, size_t length, const @@TYPE@@_states *initial, fc_error *err);

@@INSERT_RECORD_DECL@@
/* Hands out the next batch into s->batch (see fc_seg_next): FC_OK, FC_AGAIN,
 * FC_END, FC_ERR_INCOMPLETE or FC_ERR_STATE. */
int @@TYPE@@_seg_next(@@TYPE@@_segmenter *s, fc_error *err);

/* Sets s->batch.size and s->batch.example from the runtime's batch: what
 * @@TYPE@@_seg_next does after fc_seg_next, for a consumer thread that
 * takes batches with fc_seg_mt_next(<featc/fc_segment_mt.h>). */
void @@TYPE@@_seg_refresh(@@TYPE@@_segmenter *s);

/* Saves a state for the batch that is out: values holds s->batch.size
 * entries of the state's shape (s->batch.state.NAME itself, updated in
 * place, will do). */
int @@TYPE@@_seg_save_state(@@TYPE@@_segmenter *s, enum @@TYPE@@_state state,
    const void *values, fc_error *err);

@@SAVE_DECLS@@

/* No new examples; those in flight still come out. */
void @@TYPE@@_seg_close(@@TYPE@@_segmenter *s);

