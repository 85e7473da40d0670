// make bench: C++ protobuf (Debian's libprotobuf), as TensorFlow's own
// slow path reads a record: parse the whole message into an arena (reset
// between records), then look each wanted feature up in the map by key and
// copy its values into the struct.
#include <string>
#include <vector>

#include <google/protobuf/arena.h>

#include "bench.h"
#include "tf_example.pb.h"

namespace {

struct CppState {
    google::protobuf::Arena arena;
    std::vector<std::string> context_keys;
    std::vector<std::string> list_keys;
};

int put(const bench_slot *slot, const tensorflow::Feature &v)
{
    switch (v.kind_case()) {
    case tensorflow::Feature::kInt64List:
        return bench_store(slot, FC_TYPE_INT64, v.int64_list().value().data(),
                           (size_t)v.int64_list().value_size());
    case tensorflow::Feature::kFloatList:
        return bench_store(slot, FC_TYPE_FLOAT, v.float_list().value().data(),
                           (size_t)v.float_list().value_size());
    case tensorflow::Feature::kBytesList: {
        const auto &list = v.bytes_list().value();
        size_t n = (size_t)list.size();
        if (slot->type != FC_TYPE_BYTES || n > slot->cap)
            return -1;
        for (size_t i = 0; i < n; i++) {
            fc_bytes *dst = (fc_bytes *)slot->values + i;
            dst->data = (const uint8_t *)list.Get((int)i).data();
            dst->size = list.Get((int)i).size();
        }
        return bench_slot_done(slot, n);
    }
    default:
        return -1;
    }
}

int put_features(const CppState *s, const bench_msg *b, const tensorflow::Features &fs)
{
    const auto &map = fs.feature();
    for (size_t f = 0; f < s->context_keys.size(); f++) {
        auto it = map.find(s->context_keys[f]);
        if (it == map.end())
            continue;
        bench_slot slot;
        bench_slot_feature(b, f, &slot);
        if (put(&slot, it->second) != 0)
            return -1;
    }
    return 0;
}

int put_lists(const CppState *s, const bench_msg *b, const tensorflow::FeatureLists &ls)
{
    const auto &map = ls.feature_list();
    for (size_t l = 0; l < s->list_keys.size(); l++) {
        auto it = map.find(s->list_keys[l]);
        if (it == map.end())
            continue;
        const auto &frames = it->second.feature();
        for (int t = 0; t < frames.size(); t++) {
            bench_slot slot;
            if (bench_slot_frame(b, l, (size_t)t, &slot) != 0 || put(&slot, frames.Get(t)) != 0)
                return -1;
        }
        bench_set_frames(b, l, (size_t)frames.size());
    }
    return 0;
}

void *cpp_prepare(const bench_msg *b)
{
    CppState *s = new CppState;
    if (b->md) {
        for (size_t i = 0; i < b->md->nfields; i++)
            s->context_keys.emplace_back(b->md->fields[i].key, b->md->fields[i].key_len);
    } else {
        for (size_t i = 0; i < b->sd->ncontext; i++)
            s->context_keys.emplace_back(b->sd->context[i].key, b->sd->context[i].key_len);
        for (size_t i = 0; i < b->sd->nlists; i++)
            s->list_keys.emplace_back(b->sd->lists[i].key, b->sd->lists[i].key_len);
    }
    return s;
}

int cpp_parse(void *state, const bench_msg *b, const uint8_t *data, size_t len, const char **why)
{
    CppState *s = (CppState *)state;
    int rc;
    s->arena.Reset();
    if (b->md) {
        auto *ex = google::protobuf::Arena::CreateMessage<tensorflow::Example>(&s->arena);
        if (!ex->ParseFromArray(data, (int)len)) {
            *why = "tensorflow::Example::ParseFromArray failed";
            return -1;
        }
        rc = put_features(s, b, ex->features());
    } else {
        auto *ex = google::protobuf::Arena::CreateMessage<tensorflow::SequenceExample>(&s->arena);
        if (!ex->ParseFromArray(data, (int)len)) {
            *why = "tensorflow::SequenceExample::ParseFromArray failed";
            return -1;
        }
        rc = put_features(s, b, ex->context());
        if (rc == 0)
            rc = put_lists(s, b, ex->feature_lists());
    }
    if (rc != 0)
        *why = "a wanted feature has the wrong type or count";
    return rc;
}

void cpp_finish(void *state)
{
    delete (CppState *)state;
}

} // namespace

extern "C" const bench_peer bench_peer_cpp = {"C++ protobuf", cpp_prepare, cpp_parse, cpp_finish};
