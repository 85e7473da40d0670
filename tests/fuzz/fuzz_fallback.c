/* libFuzzer harness for the fallback decoder: the schema walker and
 * protobuf-c must agree (anything the walker accepts, protobuf-c decodes),
 * and the normalised view must be sorted with unique keys. */
#include <featc/fc_fallback.h>

#include <stdlib.h>
#include <string.h>

static unsigned char arena_mem[1 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n > 0 ? memcmp(a, b, n) : 0;
    return c != 0 ? c : (an < bn ? -1 : an > bn ? 1 : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int flags;
    for (flags = 0; flags <= FC_FALLBACK_LENIENT; flags++) {
        fc_arena a;
        fc_fallback fb;
        fc_error err;
        fc_payload_kind kind;
        fc_status s;
        size_t i;
        fc_arena_init(&a, arena_mem, sizeof arena_mem);
        s = fc_fallback_decode(data, size, FC_PAYLOAD_AUTO, flags, &a, &fb, &err);
        if (s == FC_ERR_NO_MEMORY)
            continue;
        if (fc_fallback_check(data, size, FC_PAYLOAD_AUTO, flags, &kind, NULL) == FC_OK &&
            s != FC_OK)
            abort(); /* walker accepted, protobuf-c refused: they disagree */
        if (s != FC_OK) {
            if (err.message[0] == '\0')
                abort();
            continue;
        }
        for (i = 1; i < fb.n_features; i++)
            if (key_cmp(fb.features[i - 1].key, fb.features[i - 1].key_len, fb.features[i].key,
                        fb.features[i].key_len) >= 0)
                abort();
        for (i = 1; i < fb.n_feature_lists; i++)
            if (key_cmp(fb.feature_lists[i - 1].key, fb.feature_lists[i - 1].key_len,
                        fb.feature_lists[i].key, fb.feature_lists[i].key_len) >= 0)
                abort();
    }
    return 0;
}
