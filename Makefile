# featc: schema compiler for TensorFlow training data.
#
#   make            build featc, the runtime libraries and the examples
#   make demo       the main job: write a TFRecord, read it back with featc
#   make test       everything: unit, corpus, CLI, sanitizers (ASan+UBSan),
#                   fuzz-seed regression, malloc-free proof
#   make fuzz       libFuzzer on every byte-taking entry point (FUZZ_SECONDS each)
#   make bench      featc vs protobuf-c vs C++ protobuf vs nanopb vs the CRC-only walk
#   make install    PREFIX=/usr/local DESTDIR= ; make uninstall
#   make deps       install the Debian packages the build needs
#   make clean

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
CLANG ?= clang
CFLAGS ?= -O2 -g
FUZZ_SECONDS ?= 60
# Debian's python3 (the one python3-protobuf installs into), even when
# another python3 comes first in PATH.
PYTHON ?= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
export PYTHON
# The corpus of real TFRecord files, beside the repository (not copied into it).
CORPUS ?= $(abspath ../shared/corpus)

DEPS_DEB = gcc g++ make flex bison libprotobuf-c-dev protobuf-c-compiler zlib1g-dev \
           clang libclang-rt-dev python3 python3-protobuf gzip pkg-config \
           libprotobuf-dev protobuf-compiler nanopb libnanopb-dev

# Strict warnings for our own code; generated protoc-c output gets none.
WARN = -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Werror
# Public headers for every module; tests also see the runtime's private wire.h.
CPPFLAGS_PUB = -D_POSIX_C_SOURCE=200809L -Iinclude -isystem $(BUILD)/gen $(CPPFLAGS)
CPPFLAGS_ALL = $(CPPFLAGS_PUB) -Isrc/runtime/core
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# The allocation-free core: framing, CRC, parse, serialize, batch, segments.
CORE_SRC = $(addprefix src/runtime/core/,error.c crc32c.c record.c example.c sequence.c batch.c \
           segment.c hash.c serialize.c)
RUNTIME_SRC = $(CORE_SRC) src/runtime/hosted/segment_mt.c
# Tool support (stdio, allocation): the JSON driver and file input.
TOOLRT_SRC = src/runtime/hosted/input.c src/runtime/hosted/driver.c
FALLBACK_SRC = src/runtime/fallback/fallback.c
PB_SRC = $(BUILD)/gen/fc_example.pb-c.c
PB_HDR = $(BUILD)/gen/fc_example.pb-c.h
# The featc program: src/cli (argv dispatch, compile and check over the
# compiler's public header) and src/tools (the record tools).
CLI_SRC = src/cli/main.c src/cli/cli.c src/cli/compile.c
TOOLS_SRC = src/tools/records.c src/tools/print.c src/tools/infer.c
# The compiler library: front end, checks, emitter.
FEATC_SRC = $(addprefix src/compiler/,compile.c diag.c sema.c emit.c)
FEATC_GEN = $(BUILD)/gen/spec_parse.c $(BUILD)/gen/spec_lex.c $(BUILD)/gen/templates.c
TEMPLATES = templates/header.h templates/message.h templates/source.c templates/message.c \
            templates/driver.c templates/seq_message.h templates/seq_message.c templates/seq_driver.c \
            templates/segments.h templates/segments.c
HEADERS = $(wildcard include/featc/*.h src/runtime/core/*.h src/compiler/*.h src/cli/*.h src/tools/*.h)

RUNTIME_OBJ = $(RUNTIME_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLRT_SRC:%.c=$(BUILD)/obj/%.o)
FEATC_OBJ = $(FEATC_SRC:%.c=$(BUILD)/obj/%.o) $(FEATC_GEN:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
FALLBACK_OBJ = $(FALLBACK_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/fc_example.pb-c.o
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLS_SRC:%.c=$(BUILD)/obj/%.o)

LIBS_FALLBACK = -lprotobuf-c
LIBS_Z = -lz

UNIT_TESTS = test_crc32c test_record test_fallback test_example test_sequence test_hash test_batch \
             test_segment test_serialize
EXAMPLES = hello_tfrecord movie_sequences elman_rnn
# The example specs, compiled by the featc just built: build/gen-specs/NAME.{h,c}
# and NAME_main.c, and each spec's JSON driver build/specs/NAME.
SPECS = $(basename $(notdir $(wildcard specs/*.feat)))
GEN_SPECS = $(BUILD)/gen-specs

.PHONY: infer-test segment-tsan codegen-test codegen-goldens corpus-check differential diag-test diag-goldens all demo test unit unit-asan nomalloc cxx-headers cli-test fuzz-regress fuzz-seeds check-tables fuzz bench \
        install uninstall deps clean

all: $(BUILD)/featc $(BUILD)/libfeatc.a $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc_compiler.a \
     $(EXAMPLES:%=$(BUILD)/examples/%) $(SPECS:%=$(BUILD)/specs/%)

# ------------------------------------------------------------------ build

$(PB_SRC) $(PB_HDR): src/runtime/fallback/fc_example.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=src/runtime/fallback --c_out=$(BUILD)/gen src/runtime/fallback/fc_example.proto

$(BUILD)/obj/gen/fc_example.pb-c.o: $(PB_SRC) $(PB_HDR)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(CFLAGS) -I$(BUILD)/gen -c $< -o $@

$(BUILD)/obj/%.o: %.c $(HEADERS) $(PB_HDR) $(BUILD)/gen/spec_parse.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_PUB) $(MODULE_INC) -c $< -o $@

# Each module sees its own headers and those it depends on, nothing more.
$(BUILD)/obj/src/compiler/%.o: MODULE_INC = -Isrc/compiler -I$(BUILD)/gen
$(BUILD)/obj/src/cli/%.o: MODULE_INC = -Isrc/cli -Isrc/tools
$(BUILD)/obj/src/tools/%.o: MODULE_INC = -Isrc/cli
$(BUILD)/obj/src/runtime/%.o: MODULE_INC = -Isrc/runtime/core

# flex and bison output: C99, no strict warnings (their code, not ours).
$(BUILD)/gen/spec_parse.c $(BUILD)/gen/spec_parse.h &: src/compiler/spec_parse.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror -d -o $(BUILD)/gen/spec_parse.c $<

$(BUILD)/gen/spec_lex.c $(BUILD)/gen/spec_lex.h &: src/compiler/spec_lex.l
	@mkdir -p $(BUILD)/gen
	flex --header-file=$(BUILD)/gen/spec_lex.h -o $(BUILD)/gen/spec_lex.c $<

$(BUILD)/obj/gen/spec_parse.o $(BUILD)/obj/gen/spec_lex.o $(BUILD)/obj/gen/templates.o: \
    $(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/gen/spec_parse.h $(BUILD)/gen/spec_lex.h \
    src/compiler/spec.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(CFLAGS) $(CPPFLAGS_PUB) -Isrc/compiler -I$(BUILD)/gen -c $< -o $@

$(BUILD)/tools/embed: src/gen/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -o $@ $<

$(BUILD)/gen/templates.c: $(BUILD)/tools/embed $(TEMPLATES)
	@mkdir -p $(BUILD)/gen
	$(BUILD)/tools/embed $@ fcc_template_header=templates/header.h \
	    fcc_template_message_h=templates/message.h fcc_template_source=templates/source.c \
	    fcc_template_message_c=templates/message.c fcc_template_driver=templates/driver.c \
	    fcc_template_seq_message_h=templates/seq_message.h \
	    fcc_template_seq_message_c=templates/seq_message.c \
	    fcc_template_seq_driver=templates/seq_driver.c \
	    fcc_template_segments_h=templates/segments.h \
	    fcc_template_segments_c=templates/segments.c

$(BUILD)/libfeatc_compiler.a: $(FEATC_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/libfeatc.a: $(RUNTIME_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/libfeatc_fallback.a: $(FALLBACK_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/featc: $(CLI_OBJ) $(BUILD)/libfeatc_compiler.a $(BUILD)/libfeatc_fallback.a \
                $(BUILD)/libfeatc.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libfeatc_compiler.a $(BUILD)/libfeatc_fallback.a \
	    $(BUILD)/libfeatc.a $(LIBS_FALLBACK) $(LIBS_Z) -lm

$(GEN_SPECS)/%.c $(GEN_SPECS)/%.h $(GEN_SPECS)/%_main.c: specs/%.feat $(BUILD)/featc
	@mkdir -p $(GEN_SPECS)
	$(BUILD)/featc compile -o $(GEN_SPECS) --driver $<

$(BUILD)/specs/%: $(GEN_SPECS)/%.c $(GEN_SPECS)/%_main.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_SPECS) -o $@ $(GEN_SPECS)/$*.c \
	    $(GEN_SPECS)/$*_main.c $(BUILD)/libfeatc.a $(LIBS_Z) -lm

.SECONDARY: $(SPECS:%=$(GEN_SPECS)/%.c) $(SPECS:%=$(GEN_SPECS)/%_main.c)

# The examples read through generated parsers: each names its spec.
$(BUILD)/examples/hello_tfrecord: $(GEN_SPECS)/tutorial.c
$(BUILD)/examples/movie_sequences: $(GEN_SPECS)/movie.c
$(BUILD)/examples/elman_rnn: $(GEN_SPECS)/elman.c
$(BUILD)/examples/%: examples/%.c $(BUILD)/libfeatc.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_SPECS) -o $@ $< $(filter $(GEN_SPECS)/%.c,$^) \
	    $(BUILD)/libfeatc.a $(LIBS_Z) -lm

# ------------------------------------------------------------------ main job

demo: all
	@sh examples/demo.sh $(BUILD)

# ------------------------------------------------------------------ tests

$(BUILD)/tests/%: tests/unit/%.c tests/unit/harness.h $(BUILD)/libfeatc.a \
                  $(BUILD)/libfeatc_fallback.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $@ $< $(BUILD)/libfeatc_fallback.a \
	    $(BUILD)/libfeatc.a $(LIBS_FALLBACK) $(LIBS_Z) -lm

# Test specs compiled by the featc just built (tests/specs -> build/gen-tests).
GEN_TESTS = $(BUILD)/gen-tests
$(GEN_TESTS)/%.c $(GEN_TESTS)/%.h: tests/specs/%.feat $(BUILD)/featc
	@mkdir -p $(GEN_TESTS)
	$(BUILD)/featc compile -o $(GEN_TESTS) --driver $<

$(BUILD)/tests/test_example: tests/unit/test_example.c tests/unit/wire.h tests/unit/harness.h \
                             $(GEN_TESTS)/semantics.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/semantics.c \
	    $(BUILD)/libfeatc.a -lm

$(BUILD)/tests/test_sequence: tests/unit/test_sequence.c tests/unit/wire.h tests/unit/harness.h \
                              $(GEN_TESTS)/seqsem.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/seqsem.c \
	    $(BUILD)/libfeatc.a -lm

$(BUILD)/asan/test_sequence: tests/unit/test_sequence.c tests/unit/wire.h $(GEN_TESTS)/seqsem.c \
                             $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/seqsem.c $(RUNTIME_SRC) $(LIBS_Z) -lm

$(BUILD)/tests/test_serialize: tests/unit/test_serialize.c tests/unit/harness.h \
                               $(GEN_TESTS)/semantics.c $(GEN_TESTS)/seqsem.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/semantics.c \
	    $(GEN_TESTS)/seqsem.c $(BUILD)/libfeatc.a $(LIBS_Z) -lm

$(BUILD)/asan/test_serialize: tests/unit/test_serialize.c $(GEN_TESTS)/semantics.c \
                              $(GEN_TESTS)/seqsem.c $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/semantics.c $(GEN_TESTS)/seqsem.c $(RUNTIME_SRC) $(LIBS_Z) -lm

$(BUILD)/tests/test_batch: tests/unit/test_batch.c tests/unit/wire.h tests/unit/harness.h \
                           $(GEN_TESTS)/batch.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/batch.c \
	    $(BUILD)/libfeatc.a $(LIBS_Z) -lm

$(BUILD)/asan/test_batch: tests/unit/test_batch.c tests/unit/wire.h $(GEN_TESTS)/batch.c \
                          $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/batch.c $(RUNTIME_SRC) $(TOOLRT_SRC) $(LIBS_Z) -lm

$(BUILD)/tests/test_segment: tests/unit/test_segment.c tests/unit/wire.h tests/unit/harness.h \
                             $(GEN_TESTS)/segment.c $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/segment.c \
	    $(BUILD)/libfeatc.a $(LIBS_Z) -lm -pthread

$(BUILD)/asan/test_segment: tests/unit/test_segment.c tests/unit/wire.h $(GEN_TESTS)/segment.c \
                            $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/segment.c $(RUNTIME_SRC) $(LIBS_Z) -lm -pthread

# The threads of test_segment under ThreadSanitizer (the producer/consumer mode).
$(BUILD)/tsan/test_segment: tests/unit/test_segment.c tests/unit/wire.h $(GEN_TESTS)/segment.c \
                            $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g -fsanitize=thread $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/segment.c $(RUNTIME_SRC) $(LIBS_Z) -lm -pthread

segment-tsan: $(BUILD)/tsan/test_segment
	@$(BUILD)/tsan/test_segment >$(BUILD)/tsan/test_segment.log 2>&1; rc=$$?; \
	    grep -v ' runs, ' $(BUILD)/tsan/test_segment.log | sed 's/^segment:/segment-tsan:/'; \
	    exit $$rc

$(BUILD)/asan/test_example: tests/unit/test_example.c tests/unit/wire.h $(GEN_TESTS)/semantics.c \
                            $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< \
	    $(GEN_TESTS)/semantics.c $(RUNTIME_SRC) $(LIBS_Z) -lm

# Generated parsers vs the protobuf-c oracle: the specs of specs/ on the
# corpus files they describe, and DIFF_SPECS random specs x DIFF_RECORDS
# random (often invalid) records, plus every spec of specs/ and tests/specs.
DIFF_SPECS ?= 20
DIFF_RECORDS ?= 5000
corpus-check: all
	@sh tests/oracle/run.sh corpus $(BUILD)/featc $(BUILD) $(CORPUS)

# featc infer on every Example/SequenceExample file of the corpus, and on
# keys no C name can hold: infer, compile, build the driver, read back,
# compare with the fallback decoder.
infer-test: all
	@mkdir -p $(BUILD)/infer-inputs
	@$(PYTHON) tests/cli/infer_inputs.py $(BUILD)/infer-inputs
	@sh tests/oracle/infer.sh $(BUILD)/featc $(BUILD) $(CORPUS) $(abspath $(BUILD))/infer-inputs/keys.tfrecord

differential: all
	@sh tests/oracle/run.sh random $(BUILD)/featc $(BUILD) $(DIFF_SPECS) $(DIFF_RECORDS)

codegen-test: all
	@sh tests/codegen/run.sh $(BUILD)/featc $(BUILD)

# Rewrites tests/codegen/golden/ from the current featc, for review (git diff).
codegen-goldens: all
	@sh tests/codegen/run.sh $(BUILD)/featc $(BUILD) update

diag-test: $(BUILD)/featc
	@sh tests/diag/run.sh $(BUILD)/featc

# Rewrites tests/diag/*.expected from the current featc, for review (git diff).
diag-goldens: $(BUILD)/featc
	@sh tests/diag/run.sh $(BUILD)/featc update

# Sanitizer builds compile the runtime sources straight into each test, with
# clang: its UBSan also checks pointer arithmetic (gcc's does not).
SAN_CC ?= $(CLANG)
$(BUILD)/asan/%: tests/unit/%.c tests/unit/harness.h $(RUNTIME_SRC) $(FALLBACK_SRC) $(PB_SRC) \
                 $(HEADERS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -o $@ $< $(RUNTIME_SRC) $(FALLBACK_SRC) \
	    -x c -std=c99 -w $(PB_SRC) -x none $(LIBS_FALLBACK) $(LIBS_Z) -lm

# The malloc-free proof interposes malloc: no sanitizer (ASan owns malloc).
NOMALLOC_GEN = $(GEN_SPECS)/hadoop.c $(GEN_SPECS)/mnist.c $(GEN_SPECS)/pascal_voc.c \
               $(GEN_TESTS)/batch.c \
               $(GEN_SPECS)/penguin.c $(GEN_SPECS)/taxi.c $(GEN_TESTS)/semantics.c \
               $(GEN_SPECS)/fake_sequence.c $(GEN_SPECS)/transform_sequence.c \
               $(GEN_SPECS)/tfx_sequence.c $(GEN_TESTS)/seqsem.c $(GEN_TESTS)/segment.c
$(BUILD)/tests/test_nomalloc: tests/unit/test_nomalloc.c tests/unit/harness.h tests/unit/wire.h \
                              $(NOMALLOC_GEN) $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_GNU_SOURCE $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_SPECS) -I$(GEN_TESTS) -o $@ $< \
	    $(NOMALLOC_GEN) $(BUILD)/libfeatc.a $(LIBS_Z) -lm

$(BUILD)/tools/gen_crc32c_tables: src/gen/gen_crc32c_tables.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -o $@ $<

check-tables: $(BUILD)/tools/gen_crc32c_tables
	@$(BUILD)/tools/gen_crc32c_tables > $(BUILD)/crc32c_tables.h
	@cmp -s $(BUILD)/crc32c_tables.h src/runtime/core/crc32c_tables.h && \
	    echo "tables: 1 passed, 0 failed" || \
	    { echo "src/runtime/core/crc32c_tables.h is stale: regenerate it"; echo "tables: 0 passed, 1 failed"; exit 1; }

# Unit suites run with FEATC_CORPUS pointing at the corpus; each runs even if
# an earlier one failed.
unit: $(UNIT_TESTS:%=$(BUILD)/tests/%)
	@rc=0; for t in $(UNIT_TESTS); do FEATC_CORPUS=$(CORPUS) $(BUILD)/tests/$$t || rc=1; done; exit $$rc

unit-asan: $(UNIT_TESTS:%=$(BUILD)/asan/%)
	@rc=0; for t in $(UNIT_TESTS); do \
	    FEATC_CORPUS=$(CORPUS) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	        $(BUILD)/asan/$$t >$(BUILD)/asan/$$t.log 2>&1 || rc=1; \
	    sed 's/^\([a-z0-9]*\): \([0-9]* passed\)/\1-asan: \2/' $(BUILD)/asan/$$t.log; \
	done; exit $$rc

nomalloc: $(BUILD)/tests/test_nomalloc
	@FEATC_CORPUS=$(CORPUS) $(BUILD)/tests/test_nomalloc

# The public headers as C++, with g++ and clang++.
CXX_STRICT = -std=c++11 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Werror
cxx-headers: $(BUILD)/libfeatc.a $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc_compiler.a
	@mkdir -p $(BUILD)/tests; n=0; for cxx in g++ clang++; do \
	    $$cxx $(CXX_STRICT) -Iinclude -isystem $(BUILD)/gen -o $(BUILD)/tests/headers-$$cxx \
	        tests/unit/test_headers.cpp $(BUILD)/libfeatc_compiler.a \
	        $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc.a \
	        $(LIBS_FALLBACK) $(LIBS_Z) && $(BUILD)/tests/headers-$$cxx && n=$$((n + 1)); \
	done; echo "cxx-headers: $$n passed, $$((2 - n)) failed"; [ $$n -eq 2 ]

cli-test: all
	@sh tests/cli/test_cli.sh $(BUILD)/featc $(CORPUS) $(BUILD)

FUZZERS = fuzz_reader fuzz_fallback fuzz_parser fuzz_seq fuzz_batch fuzz_segment fuzz_spec
FUZZ_CFLAGS = -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(BUILD)/fuzz/%: tests/fuzz/%.c $(RUNTIME_SRC) $(FALLBACK_SRC) $(PB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_ALL) -o $@ $< $(RUNTIME_SRC) $(FALLBACK_SRC) $(PB_SRC) \
	    $(LIBS_FALLBACK) $(LIBS_Z)

# The generated parser of tests/specs/semantics.feat, against the oracle.
$(BUILD)/fuzz/fuzz_parser: tests/fuzz/fuzz_parser.c tests/oracle/oracle.c tests/oracle/oracle.h \
                           tests/oracle/random_record.h tests/unit/wire.h $(GEN_TESTS)/semantics.c \
                           $(RUNTIME_SRC) $(FALLBACK_SRC) $(PB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< tests/oracle/oracle.c \
	    $(GEN_TESTS)/semantics.c $(RUNTIME_SRC) $(TOOLRT_SRC) $(FALLBACK_SRC) $(PB_SRC) \
	    $(LIBS_FALLBACK) $(LIBS_Z) -lm

# The generated SequenceExample parser of tests/specs/seqsem.feat.
$(BUILD)/fuzz/fuzz_seq: tests/fuzz/fuzz_seq.c $(GEN_TESTS)/seqsem.c $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/seqsem.c \
	    $(RUNTIME_SRC) $(LIBS_Z) -lm

# The batch entry points of tests/specs/batch.feat, against singles stacked.
$(BUILD)/fuzz/fuzz_batch: tests/fuzz/fuzz_batch.c tests/oracle/batch_check.h $(GEN_TESTS)/batch.c \
                          $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/batch.c \
	    $(RUNTIME_SRC) $(LIBS_Z) -lm

# The segment batcher over tests/specs/segment.feat: programs of inserts,
# batches, saves and closes.
$(BUILD)/fuzz/fuzz_segment: tests/fuzz/fuzz_segment.c tests/unit/wire.h $(GEN_TESTS)/segment.c \
                            $(RUNTIME_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_TESTS) -o $@ $< $(GEN_TESTS)/segment.c \
	    $(RUNTIME_SRC) $(LIBS_Z) -lm

# The spec compiler, flex and bison output included.
$(BUILD)/fuzz/fuzz_spec: tests/fuzz/fuzz_spec.c $(FEATC_SRC) $(FEATC_GEN) $(BUILD)/gen/spec_parse.h \
                         $(BUILD)/gen/spec_lex.h $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_PUB) -Isrc/compiler -I$(BUILD)/gen -o $@ $< $(FEATC_SRC) \
	    $(FEATC_GEN) -lm

# Runs each fuzzer once over its committed seeds (no fuzzing): a regression test.
fuzz-regress: $(FUZZERS:%=$(BUILD)/fuzz/%)
	@for f in $(FUZZERS); do \
	    $(BUILD)/fuzz/$$f -runs=0 tests/fuzz/seeds/$$f >$(BUILD)/fuzz/$$f.log 2>&1 || \
	        { cat $(BUILD)/fuzz/$$f.log; echo "fuzz-seeds: 0 passed, 1 failed"; exit 1; }; \
	done; echo "fuzz-seeds: $(words $(FUZZERS)) passed, 0 failed"

# Regenerates the committed seed corpora with featc's own writer.
fuzz-seeds: $(BUILD)/libfeatc.a
	@mkdir -p $(BUILD)/tools $(FUZZERS:%=tests/fuzz/seeds/%)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $(BUILD)/tools/make_seeds tests/fuzz/make_seeds.c \
	    $(BUILD)/libfeatc.a $(LIBS_Z)
	$(BUILD)/tools/make_seeds tests/fuzz/seeds/fuzz_reader tests/fuzz/seeds/fuzz_fallback \
	    tests/fuzz/seeds/fuzz_parser tests/fuzz/seeds/fuzz_seq tests/fuzz/seeds/fuzz_batch
	for f in specs/*.feat tests/specs/*.feat; do cp $$f tests/fuzz/seeds/fuzz_spec/spec-$${f##*/}; done
	for f in tests/diag/*.feat; do cp $$f tests/fuzz/seeds/fuzz_spec/diag-$${f##*/}; done

fuzz: $(FUZZERS:%=$(BUILD)/fuzz/%)
	@for f in $(FUZZERS); do \
	    mkdir -p $(BUILD)/fuzz/corpus-$$f; \
	    echo "fuzzing $$f for $(FUZZ_SECONDS)s"; \
	    dict=; [ -f tests/fuzz/$$f.dict ] && dict=-dict=tests/fuzz/$$f.dict; \
	    $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -artifact_prefix=$(BUILD)/fuzz/$$f- $$dict \
	        $(BUILD)/fuzz/corpus-$$f tests/fuzz/seeds/$$f || exit 1; \
	done

test:
	@sh tests/run.sh "$(MAKE)" $(BUILD) $(CORPUS)

# ------------------------------------------------------------------ bench
# make bench: tests/bench/gen writes the corpora with featc's own generated
# serializers; tests/bench/bench reads them with featc, protobuf-c, C++
# protobuf and nanopb (the last two from Debian: libprotobuf-dev,
# protobuf-compiler, nanopb, libnanopb-dev) and prints the tables.
# BENCH_REPS passes per contender (median reported; at least 5).
BENCH = $(BUILD)/bench
BENCH_REPS ?= 7
BENCH_SPECS = wide_all wide photo clip
NANOPB_GEN ?= /usr/bin/nanopb_generator.py
BENCH_GEN_SRC = $(BENCH_SPECS:%=$(BENCH)/gen/%.c)
BENCH_FLAGS = -std=c99 $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_SPECS) -I$(BENCH)/gen -I$(BENCH)/nanopb \
              -I$(BENCH)/cpp -Itests/bench

$(BENCH)/gen/%.c $(BENCH)/gen/%.h &: tests/bench/%.feat $(BUILD)/featc
	@mkdir -p $(BENCH)/gen
	$(BUILD)/featc compile -o $(BENCH)/gen $<

$(BENCH)/nanopb/fc_example.pb.c $(BENCH)/nanopb/fc_example.pb.h &: src/runtime/fallback/fc_example.proto \
    tests/bench/fc_example.options
	@mkdir -p $(BENCH)/nanopb
	$(PYTHON) $(NANOPB_GEN) -q -I src/runtime/fallback -f tests/bench/fc_example.options -D $(BENCH)/nanopb \
	    src/runtime/fallback/fc_example.proto

$(BENCH)/cpp/tf_example.pb.cc $(BENCH)/cpp/tf_example.pb.h &: tests/bench/tf_example.proto
	@mkdir -p $(BENCH)/cpp
	protoc --proto_path=tests/bench --cpp_out=$(BENCH)/cpp tests/bench/tf_example.proto

$(BENCH)/gen-corpora: tests/bench/gen.c $(BENCH_GEN_SRC) $(GEN_SPECS)/tutorial.c \
    $(BUILD)/libfeatc.a $(HEADERS)
	$(CC) $(WARN) $(BENCH_FLAGS) -o $@ tests/bench/gen.c $(BENCH)/gen/wide_all.c \
	    $(BENCH)/gen/photo.c $(BENCH)/gen/clip.c $(GEN_SPECS)/tutorial.c $(BUILD)/libfeatc.a $(LIBS_Z)

BENCH_C = tests/bench/bench.c tests/bench/common.c tests/bench/peer_protobuf_c.c \
          tests/bench/peer_nanopb.c
$(BENCH)/bench: $(BENCH_C) tests/bench/bench.h tests/bench/peer_cpp.cc $(BENCH_GEN_SRC) \
    $(GEN_SPECS)/tutorial.c $(BENCH)/nanopb/fc_example.pb.c $(BENCH)/cpp/tf_example.pb.cc \
    $(BUILD)/libfeatc.a $(BUILD)/obj/gen/fc_example.pb-c.o $(HEADERS)
	@mkdir -p $(BENCH)/obj
	for f in $(BENCH_C); do \
	    $(CC) $(WARN) $(BENCH_FLAGS) -c $$f -o $(BENCH)/obj/$$(basename $$f .c).o || exit 1; done
	for f in $(BENCH)/gen/wide.c $(BENCH)/gen/photo.c $(BENCH)/gen/clip.c $(GEN_SPECS)/tutorial.c; do \
	    $(CC) $(WARN) $(BENCH_FLAGS) -c $$f -o $(BENCH)/obj/spec_$$(basename $$f .c).o || exit 1; done
	$(CC) $(BENCH_FLAGS) -c $(BENCH)/nanopb/fc_example.pb.c -o $(BENCH)/obj/nanopb_example.o
	$(CXX) -std=c++17 $(CFLAGS) $(CPPFLAGS_ALL) -I$(BENCH)/cpp -Itests/bench -Wall -Wextra \
	    -c tests/bench/peer_cpp.cc -o $(BENCH)/obj/peer_cpp.o
	$(CXX) -std=c++17 $(CFLAGS) -I$(BENCH)/cpp -c $(BENCH)/cpp/tf_example.pb.cc \
	    -o $(BENCH)/obj/tf_example.pb.o
	$(CXX) -o $@ $(BENCH)/obj/*.o $(BUILD)/obj/gen/fc_example.pb-c.o $(BUILD)/libfeatc.a \
	    -lprotobuf-c -lprotobuf -lprotobuf-nanopb $(LIBS_Z)

bench: $(BENCH)/gen-corpora $(BENCH)/bench
	@mkdir -p $(BENCH)/data
	@$(BENCH)/gen-corpora $(BENCH)/data
	@echo "CPU: $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1),"\
	    "$$(nproc) cores; compiler: $$($(CC) --version | head -1); CFLAGS: $(CFLAGS)"
	@$(BENCH)/bench $(BENCH)/data $(BENCH_REPS)

# ------------------------------------------------------------------ install

INSTALL_HDRS = $(wildcard include/featc/*.h) $(PB_HDR)

VERSION = $(shell sed -n 's/^\#define FC_VERSION_STRING "\(.*\)"/\1/p' include/featc/fc_base.h)
PC_FILES = src/runtime/featc.pc.in src/runtime/featc-fallback.pc.in src/compiler/featc-compiler.pc.in

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/featc
	install -m 755 $(BUILD)/featc $(DESTDIR)$(PREFIX)/bin/featc
	install -m 644 $(BUILD)/libfeatc.a $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc_compiler.a \
	    $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(INSTALL_HDRS) $(DESTDIR)$(PREFIX)/include/featc/
	for pc in $(PC_FILES); do \
	    sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $$pc \
	        > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$(basename $$pc .in) || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/featc
	rm -f $(DESTDIR)$(PREFIX)/lib/libfeatc.a $(DESTDIR)$(PREFIX)/lib/libfeatc_fallback.a \
	    $(DESTDIR)$(PREFIX)/lib/libfeatc_compiler.a
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/pkgconfig/,$(notdir $(PC_FILES:.in=)))
	rm -rf $(DESTDIR)$(PREFIX)/include/featc

# ------------------------------------------------------------------ setup

deps:
	@missing=""; for p in $(DEPS_DEB); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	        apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	    echo "deps: missing Debian packages:$$missing"; \
	    echo "deps: run: sudo apt-get install -y$$missing"; exit 1; \
	fi

clean:
	rm -rf $(BUILD)
