# featc: schema compiler for TensorFlow training data.
#
#   make            build featc, the runtime libraries and the examples
#   make demo       the main job: write a TFRecord, read it back with featc
#                   (quiet; V=1 shows the build's commands)
#   make test       everything: unit, corpus, CLI, sanitizers (ASan+UBSan),
#                   fuzz-seed regression, malloc-free proof (tests/README.md)
#   make check      the quick subset: build, unit, CLI, diagnostics, codegen
#   make fuzz       libFuzzer on every byte-taking entry point (FUZZ_SECONDS each)
#   make bench      featc vs protobuf-c vs C++ protobuf vs nanopb vs the CRC-only walk
#   make install    PREFIX=/usr/local DESTDIR= (BINDIR LIBDIR INCLUDEDIR MANDIR
#                   PKGCONFIGDIR CMAKEDIR); make uninstall
#   make python     the Python layer and a module per spec (build/python)
#   make install-python  the featc Python package (PYTHONDIR) and its libraries
#   make deps       install the Debian packages the build, the demo and the
#                   Python module need (as root; else it prints the sudo line)
#   make deps-python  and those of featc.dask, featc.torch and URLs
#   make deps-test  and everything make test and make bench need
#   make test-fresh the README's quick start in a clean Debian root (minutes)
#   make clean

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/featc
MANDIR ?= $(PREFIX)/share/man
VERSION := $(shell sed -n 's/^\#define FC_VERSION_STRING "\(.*\)"/\1/p' include/featc/fc_base.h)
VERSION_MAJOR := $(firstword $(subst ., ,$(VERSION)))
BUILD ?= build
CC ?= cc
CLANG ?= clang
CFLAGS ?= -O2 -g
FUZZ_SECONDS ?= 60
# Debian's python3 (the one python3-protobuf installs into), even when
# another python3 comes first in PATH.
PYTHON ?= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
export PYTHON
# The corpus of real TFRecord files written by other projects (tests/corpus:
# MANIFEST.md describes each file, NOTICE gives its source and license).
CORPUS ?= $(abspath tests/corpus)

# make deps: the Debian packages building featc, `make demo`, `make install`
# and `make python` need (docs/build.md, "Dependencies", says why each).
DEPS_BUILD = gcc make flex bison libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libisal-dev \
             libzstd-dev libsnappy-dev libbrotli-dev liblz4-dev pkg-config python3 python3-dev \
             python3-numpy
# make deps-python: featc's Python integrations (Dask, PyTorch, URLs) and
# installing its package with pip.
DEPS_PYTHON = python3-dask python3-distributed python3-pandas python3-torch python3-fsspec \
              python3-aiohttp python3-pip python3-setuptools python3-wheel
# make deps-test: the rest of what `make test` and `make bench` use.
DEPS_TEST = g++ clang libclang-rt-dev python3-protobuf gzip time ca-certificates \
            libprotobuf-dev protobuf-compiler nanopb libnanopb-dev \
            cmake ninja-build meson gcc-multilib lib32z1-dev qemu-user \
            binutils-s390x-linux-gnu libc6-dev-s390x-cross libgcc-12-dev-s390x-cross \
            gcc-arm-none-eabi libnewlib-arm-none-eabi libc6-dev-riscv64-cross \
            binutils-riscv64-linux-gnu libgcc-12-dev-riscv64-cross \
            chromium nginx nodejs bazel-bootstrap
# The npm packages the Arrow tests read featc's output with (pinned in
# tests/arrow/package-lock.json), installed by make deps, never at test
# time.  npm comes with NodeSource's nodejs, apart with Debian's (then
# make deps installs Debian's npm package).
NPM_DIR = $(BUILD)/npm

# Strict warnings for our own code; generated protoc-c output gets none.
WARN = -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Werror
# Public headers for every module; tests also see the runtime's private wire.h.
# _FILE_OFFSET_BITS=64: 32-bit builds see files past 2 GiB and read
# directories whose entries have 64-bit offsets (ext4's hashed directories:
# readdir failed with EOVERFLOW on i386 under qemu-user, and found no file).
CPPFLAGS_PUB = -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64 -Iinclude -isystem $(BUILD)/gen $(CPPFLAGS_ISAL) $(CPPFLAGS)
CPPFLAGS_ALL = $(CPPFLAGS_PUB) -Iruntime/core

# The allocation-free core: framing, CRC, parse, serialize, batch, segments.
CORE_SRC = $(addprefix runtime/core/,error.c crc32c.c frame.c inflate.c reader.c stream.c seek.c writer.c map.c example.c built.c typed.c sequence.c batch.c batch_direct.c batch_seq_direct.c \
           segment.c hash.c serialize.c index.c)
RUNTIME_SRC = $(CORE_SRC) runtime/hosted/segment_mt.c
# Tool support (stdio, allocation): the JSON driver and file input.
TOOLRT_SRC = runtime/hosted/input.c runtime/hosted/huge.c runtime/hosted/ahead.c runtime/hosted/walks.c runtime/hosted/guard.c runtime/hosted/number.c runtime/hosted/json.c \
             runtime/hosted/arrow.c runtime/hosted/arrow_stream.c runtime/hosted/arrow_ipc.c runtime/hosted/arrow_ipc_read.c \
             runtime/hosted/arrow_rows.c runtime/hosted/arrow_rows_direct.c runtime/hosted/thrift.c runtime/hosted/parquet_encode.c runtime/hosted/parquet_write.c runtime/hosted/parquet_pages.c \
             runtime/hosted/thrift_read.c runtime/hosted/parquet_decode.c runtime/hosted/parquet_read.c runtime/hosted/parquet_chunk.c \
             runtime/hosted/driver.c runtime/hosted/pool.c runtime/hosted/output.c
FALLBACK_SRC = runtime/fallback/fallback.c
PB_SRC = $(BUILD)/gen/fc_example.pb-c.c
PB_HDR = $(BUILD)/gen/fc_example.pb-c.h
# The featc program (cli/): main.c and its table of commands over
# cli/commands/ (one file per command or family, stats/ a folder of its own),
# over the helpers they share, cli/base/.  tests/cli/layout.py keeps the
# order: a helper includes no command, no two files include each other.
CLI_BASE_SRC = $(addprefix cli/base/,cli.c progress.c read.c spec.c kinds.c heap.c)
CLI_CMD_SRC = $(addprefix cli/commands/,compile.c breaking.c check_data.c records.c print.c index.c infer.c \
              convert.c convert_back.c convert_jobs.c tfx.c validate.c validate_drift.c \
              stats/stats.c stats/model.c stats/text.c stats/json.c \
              stats/html.c stats/compare.c stats/tfdv.c stats/sketch.c stats/drift_read.c \
              stats/drift.c)
CLI_SRC = cli/main.c $(CLI_BASE_SRC) $(CLI_CMD_SRC)
# The compiler library: front end, checks, emitter.
FEATC_SRC = $(addprefix compiler/,compile.c diag.c sema_names.c sema_values.c sema_tf.c sema.c sema_message.c \
            emit_feature.c emit_direct.c emit_sequence.c emit_segments.c emit.c export.c export_tfmd.c dynamic.c pbtxt.c \
            tfmd_read.c tfmd_import.c tfmd_constraints.c breaking.c)
FEATC_GEN = $(BUILD)/gen/spec_parse.c $(BUILD)/gen/spec_lex.c $(BUILD)/gen/templates.c
# Every template, embedded into the compiler as fcc_template_NAME_EXT.
TEMPLATES = $(sort $(wildcard templates/*.c templates/*.h))
HEADERS = $(wildcard include/featc/*.h runtime/core/*.h runtime/hosted/*.h compiler/*.h cli/*/*.h cli/*/*/*.h)

RUNTIME_OBJ = $(RUNTIME_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLRT_SRC:%.c=$(BUILD)/obj/%.o)
FEATC_OBJ = $(FEATC_SRC:%.c=$(BUILD)/obj/%.o) $(FEATC_GEN:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
FALLBACK_OBJ = $(FALLBACK_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/fc_example.pb-c.o
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)

LIBS_FALLBACK = -lprotobuf-c
LIBS_Z = -lz
# ISA-L's inflate behind the reader on x86-64 when libisal-dev is installed
# (about twice zlib's speed on compressible data; docs/runtime.md, "Compression");
# make WITH_ZLIB=1 keeps zlib alone.  Probed with the compiler and flags in
# use: a -m32 or cross build finds no libisal and keeps zlib.
ifneq ($(WITH_ZLIB),1)
HAVE_ISAL := $(shell printf '\043include <isa-l/igzip_lib.h>\nint main(void) { static struct inflate_state s; isal_inflate_init(&s); return 0; }\n' | \
    $(CC) $(CFLAGS) -x c - -o /dev/null -lisal 2>/dev/null && echo 1)
endif
# The runtime references ISA-L's two functions weakly (frame.h): a program
# that does not link libisal, a fully static one included (Debian ships no
# libisal.a), runs zlib.  Weak references do not count as a need, so the
# linker's default --as-needed would drop a plain -lisal: it is linked with
# --no-as-needed, here and wherever these flags are written down.
ifeq ($(HAVE_ISAL),1)
CPPFLAGS_ISAL = -DFC_WITH_ISAL
LIBS_ISAL = -Wl,--push-state,--no-as-needed -lisal -Wl,--pop-state
LIBS_Z = $(LIBS_ISAL) -lz
endif
# the test scripts link libfeatc.a with it (${LIBS_Z:--lz})
export LIBS_Z
# make WITH_ZLIB=1 after a default build (or the reverse) rebuilds what
# depends on the choice: $(ISAL_CHOICE), below
ISAL_CHOICE = $(BUILD)/isal.choice
# The Parquet codecs beyond GZIP (runtime/hosted/codecs.c, <featc/fc_codecs.h>,
# libfeatc_codecs.a: featc convert and the Python modules link it): libzstd's
# and libsnappy's (written and read), libbrotli's and liblz4's (read: DuckDB
# writes them), when the compiler in use finds them (a -m32 or cross
# build does not: its featc names the library it lacks when asked).
HAVE_ZSTD := $(shell printf '\043include <zstd.h>\nint main(void) { return ZSTD_compressBound(1) == 0; }\n' | \
    $(CC) $(CFLAGS) -x c - -o /dev/null -lzstd 2>/dev/null && echo 1)
HAVE_SNAPPY := $(shell printf '\043include <snappy-c.h>\nint main(void) { return snappy_max_compressed_length(1) == 0; }\n' | \
    $(CC) $(CFLAGS) -x c - -o /dev/null -lsnappy 2>/dev/null && echo 1)
HAVE_BROTLI := $(shell printf '\043include <brotli/decode.h>\nint main(void) { return BrotliDecoderVersion() == 0; }\n' | \
    $(CC) $(CFLAGS) -x c - -o /dev/null -lbrotlidec 2>/dev/null && echo 1)
HAVE_LZ4 := $(shell printf '\043include <lz4.h>\nint main(void) { return LZ4_versionNumber() == 0; }\n' | \
    $(CC) $(CFLAGS) -x c - -o /dev/null -llz4 2>/dev/null && echo 1)
# libsnappy is C++, and linked it loads libstdc++ into every featc process
# (a millisecond of each start): where its shared library has a soname,
# codecs.c opens that with dlopen at the first snappy page instead.
SNAPPY_SONAME := $(if $(HAVE_SNAPPY),$(shell objdump -p "$$($(CC) $(CFLAGS) -print-file-name=libsnappy.so)" \
    2>/dev/null | sed -n 's/^ *SONAME *\([A-Za-z0-9_.+-]*\)$$/\1/p'))
CPPFLAGS_CODECS = $(if $(HAVE_ZSTD),-DFC_WITH_ZSTD) $(if $(HAVE_SNAPPY),-DFC_WITH_SNAPPY) \
                  $(if $(SNAPPY_SONAME),-DFC_SNAPPY_SONAME=$(SNAPPY_SONAME)) \
                  $(if $(HAVE_BROTLI),-DFC_WITH_BROTLI) $(if $(HAVE_LZ4),-DFC_WITH_LZ4)
LIBS_CODECS = $(if $(HAVE_ZSTD),-lzstd) $(if $(HAVE_SNAPPY),$(if $(SNAPPY_SONAME),-ldl,-lsnappy)) \
              $(if $(HAVE_BROTLI),-lbrotlidec) $(if $(HAVE_LZ4),-llz4)
CODEC_CHOICE = $(BUILD)/codec.choice

EXAMPLES = hello_tfrecord movie_sequences elman_rnn read_penguin
# The example specs, compiled by the featc just built: build/gen-specs/NAME.{h,c}
# and NAME_main.c, and each spec's JSON driver build/specs/NAME.
SPECS = $(basename $(notdir $(wildcard specs/*.feat)))
GEN_SPECS = $(BUILD)/gen-specs

.PHONY: all demo bench install install-python uninstall deps deps-python deps-test deps-check \
        test-fresh clean python python-bench

all: $(BUILD)/featc $(BUILD)/libfeatc.a $(BUILD)/libfeatc.libs $(BUILD)/libfeatc.so.$(VERSION) \
     $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc_codecs.libs \
     $(BUILD)/libfeatc_fallback.a \
     $(BUILD)/libfeatc_compiler.a \
     $(EXAMPLES:%=$(BUILD)/examples/%) $(SPECS:%=$(BUILD)/specs/%)

# ------------------------------------------------------------------ build

# The ISA-L choice as a file that changes only when the choice does:
# the reader, the link flags and the unit tests depend on it.
$(ISAL_CHOICE): FORCE
	@mkdir -p $(dir $@)
	@echo "HAVE_ISAL=$(HAVE_ISAL)" | cmp -s - $@ || echo "HAVE_ISAL=$(HAVE_ISAL)" > $@
$(CODEC_CHOICE): FORCE
	@mkdir -p $(dir $@)
	@echo "$(CPPFLAGS_CODECS)" | cmp -s - $@ || echo "$(CPPFLAGS_CODECS)" > $@
$(BUILD)/obj/runtime/hosted/codecs.o: $(CODEC_CHOICE)
$(BUILD)/obj/runtime/hosted/codecs.o: MODULE_INC = -Iruntime/core -fPIC $(CPPFLAGS_CODECS)
.PHONY: FORCE
FORCE:

# What a program links after libfeatc.a (or libfeatc_pic.a): zlib, libm,
# threads, and ISA-L where the build found it.  The README's tour and
# featc.load read it: cc ... build/libfeatc.a $(cat build/libfeatc.libs)
$(BUILD)/libfeatc.libs: Makefile $(ISAL_CHOICE)
	@mkdir -p $(dir $@)
	echo "$(LIBS_Z) -lm -pthread" > $@
# The codecs' archive (position-independent: the featc program and the
# Python modules link the same one) and what it links after it.
$(BUILD)/libfeatc_codecs.a: $(BUILD)/obj/runtime/hosted/codecs.o
	rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/libfeatc_codecs.libs: Makefile $(CODEC_CHOICE)
	@mkdir -p $(dir $@)
	echo "$(LIBS_CODECS)" > $@

$(PB_SRC) $(PB_HDR): runtime/fallback/fc_example.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=runtime/fallback --c_out=$(BUILD)/gen runtime/fallback/fc_example.proto

$(BUILD)/obj/gen/fc_example.pb-c.o: $(PB_SRC) $(PB_HDR)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(CFLAGS) -I$(BUILD)/gen -c $< -o $@

$(BUILD)/obj/%.o: %.c $(HEADERS) $(PB_HDR) $(BUILD)/gen/spec_parse.h $(BUILD)/gen/templates.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_PUB) $(MODULE_INC) -c $< -o $@

# Each module sees its own headers and those it depends on, nothing more.
$(BUILD)/obj/compiler/%.o: MODULE_INC = -Icompiler -I$(BUILD)/gen
$(BUILD)/obj/cli/%.o: MODULE_INC = -Icli
$(BUILD)/obj/runtime/%.o: MODULE_INC = -Iruntime/core

# flex and bison output: C99, no strict warnings (their code, not ours).
$(BUILD)/gen/spec_parse.c $(BUILD)/gen/spec_parse.h &: compiler/spec_parse.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror -d -o $(BUILD)/gen/spec_parse.c $<

$(BUILD)/gen/spec_lex.c $(BUILD)/gen/spec_lex.h &: compiler/spec_lex.l
	@mkdir -p $(BUILD)/gen
	flex --header-file=$(BUILD)/gen/spec_lex.h -o $(BUILD)/gen/spec_lex.c $<

$(BUILD)/obj/gen/spec_parse.o $(BUILD)/obj/gen/spec_lex.o $(BUILD)/obj/gen/templates.o: \
    $(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/gen/spec_parse.h $(BUILD)/gen/spec_lex.h \
    $(BUILD)/gen/templates.h \
    compiler/spec.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(CFLAGS) $(CPPFLAGS_PUB) -Icompiler -I$(BUILD)/gen -c $< -o $@

$(BUILD)/tools/embed: compiler/gen/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -o $@ $<

$(BUILD)/gen/templates.c $(BUILD)/gen/templates.h &: $(BUILD)/tools/embed $(TEMPLATES)
	@mkdir -p $(BUILD)/gen
	$(BUILD)/tools/embed $(BUILD)/gen/templates fcc_template_ $(TEMPLATES)

$(BUILD)/libfeatc_compiler.a: $(FEATC_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/libfeatc.a: $(RUNTIME_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# The runtime as a shared library too: position-independent objects of the
# same sources, soname libfeatc.so.MAJOR (the ABI changes with the major
# version; 0 while featc is young).
SONAME = libfeatc.so.$(VERSION_MAJOR)
$(BUILD)/pic/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -fPIC $(CPPFLAGS_PUB) -Iruntime/core -c $< -o $@
$(BUILD)/obj/runtime/core/reader.o $(BUILD)/pic/runtime/core/reader.o $(BUILD)/obj/runtime/core/seek.o \
    $(BUILD)/pic/runtime/core/seek.o $(BUILD)/obj/runtime/core/frame.o $(BUILD)/pic/runtime/core/frame.o: $(ISAL_CHOICE)

$(BUILD)/libfeatc.so.$(VERSION): $(RUNTIME_SRC:%.c=$(BUILD)/pic/%.o) $(TOOLRT_SRC:%.c=$(BUILD)/pic/%.o)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LIBS_Z) -lm -pthread

$(BUILD)/libfeatc_fallback.a: $(FALLBACK_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/featc: $(CLI_OBJ) $(BUILD)/libfeatc_compiler.a $(BUILD)/libfeatc_fallback.a \
                $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libfeatc_compiler.a $(BUILD)/libfeatc_fallback.a \
	    $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc.a $(LIBS_FALLBACK) $(LIBS_Z) $(LIBS_CODECS) -lm

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
$(BUILD)/examples/read_penguin: $(GEN_SPECS)/penguin.c
$(BUILD)/examples/%: examples/%.c $(BUILD)/libfeatc.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -I$(GEN_SPECS) -o $@ $< $(filter $(GEN_SPECS)/%.c,$^) \
	    $(BUILD)/libfeatc.a $(LIBS_Z) -lm

# ------------------------------------------------------------------ main job

# Quiet: the build's command lines only with V=1 (make demo V=1).
demo:
	@$(MAKE) --no-print-directory $(if $(V),,-s) all
	@sh examples/demo.sh $(BUILD)

# ------------------------------------------------------------------ tests

include tests/tests.mk

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

$(BENCH)/nanopb/fc_example.pb.c $(BENCH)/nanopb/fc_example.pb.h &: runtime/fallback/fc_example.proto \
    tests/bench/fc_example.options
	@mkdir -p $(BENCH)/nanopb
	$(PYTHON) $(NANOPB_GEN) -q -I runtime/fallback -f tests/bench/fc_example.options -D $(BENCH)/nanopb \
	    runtime/fallback/fc_example.proto

$(BENCH)/cpp/tf_example.pb.cc $(BENCH)/cpp/tf_example.pb.h &: tests/bench/tf_example.proto
	@mkdir -p $(BENCH)/cpp
	protoc --proto_path=tests/bench --cpp_out=$(BENCH)/cpp tests/bench/tf_example.proto

$(BENCH)/gen-corpora: tests/bench/gen.c $(BENCH_GEN_SRC) $(GEN_SPECS)/tutorial.c \
    $(BUILD)/libfeatc.a $(HEADERS)
	$(CC) $(WARN) $(BENCH_FLAGS) -o $@ tests/bench/gen.c $(BENCH)/gen/wide_all.c \
	    $(BENCH)/gen/photo.c $(BENCH)/gen/clip.c $(GEN_SPECS)/tutorial.c $(BUILD)/libfeatc.a $(LIBS_Z)

BENCH_C = tests/bench/bench.c tests/bench/common.c tests/bench/peer_protobuf_c.c \
          tests/bench/peer_nanopb.c
$(BENCH)/bench: $(BENCH_C) tests/bench/bench.h tests/bench/clock.h tests/bench/peer_cpp.cc $(BENCH_GEN_SRC) \
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
	    -lprotobuf-c -lprotobuf -lprotobuf-nanopb $(LIBS_Z) -lisal -pthread

# The Python rows (tests/bench/python_bench.py): the modules, Python
# protobuf's tf.train.Example (protoc --python_out) and the C batch API.
$(BENCH)/py/tf_example_pb2.py: tests/bench/tf_example.proto
	@mkdir -p $(BENCH)/py
	protoc --proto_path=tests/bench --python_out=$(BENCH)/py tests/bench/tf_example.proto

$(BENCH)/pairs_tutorial: SPEC_DESC = tutorial_record_desc
$(BENCH)/pairs_tutorial: SPEC_C = $(GEN_SPECS)/tutorial.c
$(BENCH)/pairs_wide: SPEC_DESC = wide_record_desc
$(BENCH)/pairs_wide: SPEC_C = $(BENCH)/gen/wide.c
$(BENCH)/pairs_sequence: SPEC_DESC = seq_clip_desc
$(BENCH)/pairs_sequence: SPEC_C = $(BENCH)/gen/clip.c
$(BENCH)/pairs_sequence: BATCH_SEQ = -DSEQ
$(BENCH)/batch_rate_tutorial: SPEC_DESC = tutorial_record_desc
$(BENCH)/batch_rate_tutorial: SPEC_C = $(GEN_SPECS)/tutorial.c
$(BENCH)/batch_rate_wide: SPEC_DESC = wide_record_desc
$(BENCH)/batch_rate_wide: SPEC_C = $(BENCH)/gen/wide.c
$(BENCH)/batch_rate_sequence: SPEC_DESC = seq_clip_desc
$(BENCH)/batch_rate_sequence: SPEC_C = $(BENCH)/gen/clip.c
$(BENCH)/batch_rate_sequence: BATCH_SEQ = -DSEQ
$(BENCH)/batch_rate_%: tests/bench/batch_rate.c tests/bench/clock.h tests/bench/desc.h $(GEN_SPECS)/tutorial.c $(BENCH)/gen/wide.c \
    $(BENCH)/gen/clip.c $(BUILD)/libfeatc.a $(HEADERS)
	$(CC) $(WARN) $(BENCH_FLAGS) -include $(SPEC_C:.c=.h) -DDESC=$(SPEC_DESC) $(BATCH_SEQ) \
	    -o $@ $< $(SPEC_C) $(BUILD)/libfeatc.a $(LIBS_Z) -lm

# The same as a shared library: chain.py's py1/batch link calls its
# batch_rate_pass in turns with the Python module's read() in one process.
$(BENCH)/batch_rate_tutorial.so: SPEC_DESC = tutorial_record_desc
$(BENCH)/batch_rate_tutorial.so: SPEC_C = $(GEN_SPECS)/tutorial.c
$(BENCH)/batch_rate_wide.so: SPEC_DESC = wide_record_desc
$(BENCH)/batch_rate_wide.so: SPEC_C = $(BENCH)/gen/wide.c
$(BENCH)/batch_rate_sequence.so: SPEC_DESC = seq_clip_desc
$(BENCH)/batch_rate_sequence.so: SPEC_C = $(BENCH)/gen/clip.c
$(BENCH)/batch_rate_sequence.so: BATCH_SEQ = -DSEQ
$(BENCH)/batch_rate_%.so: tests/bench/batch_rate.c tests/bench/clock.h tests/bench/desc.h $(GEN_SPECS)/tutorial.c $(BENCH)/gen/wide.c \
    $(BENCH)/gen/clip.c $(BUILD)/libfeatc.a $(HEADERS)
	$(CC) $(WARN) $(BENCH_FLAGS) -fPIC -shared -include $(SPEC_C:.c=.h) -DDESC=$(SPEC_DESC) \
	    $(BATCH_SEQ) -o $@ $< $(SPEC_C) $(BUILD)/libfeatc.a $(LIBS_Z) -lm

# The paired links (tests/bench/pairs.c), per spec as batch_rate.
$(BENCH)/pairs_%: tests/bench/pairs.c tests/bench/clock.h tests/bench/desc.h $(GEN_SPECS)/tutorial.c $(BENCH)/gen/wide.c \
    $(BENCH)/gen/clip.c $(BUILD)/libfeatc.a $(HEADERS)
	$(CC) $(WARN) $(BENCH_FLAGS) -include $(SPEC_C:.c=.h) -DDESC=$(SPEC_DESC) $(BATCH_SEQ) \
	    -o $@ $< $(SPEC_C) $(BUILD)/libfeatc.a $(LIBS_Z) -lm

BENCH_PY = $(BENCH)/py/tf_example_pb2.py $(BENCH)/batch_rate_tutorial $(BENCH)/batch_rate_wide \
           $(BENCH)/batch_rate_sequence $(BENCH)/pairs_tutorial $(BENCH)/pairs_wide \
           $(BENCH)/pairs_sequence $(BENCH)/batch_rate_tutorial.so $(BENCH)/batch_rate_wide.so \
           $(BENCH)/batch_rate_sequence.so

bench: $(BENCH)/gen-corpora $(BENCH)/bench python python-bench $(BENCH_PY)
	@mkdir -p $(BENCH)/data
	@$(BENCH)/gen-corpora $(BENCH)/data
	@echo "CPU: $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1),"\
	    "$$(nproc) cores; compiler: $$($(CC) --version | head -1); CFLAGS: $(CFLAGS)"
	@$(BENCH)/bench $(BENCH)/data $(BENCH_REPS) $(BENCH)/chain.txt
	@$(PYTHON) tests/bench/python_bench.py $(BENCH)/data $(BUILD) $(BENCH_REPS)
	@$(PYTHON) tests/bench/chain.py $(BENCH)/data $(BUILD) $(BENCH_REPS) $(BENCH)/chain.txt
	@$(PYTHON) tests/bench/torch_bench.py $(BENCH)/data $(BUILD) $(BENCH_REPS)
	@$(PYTHON) tests/bench/parquet_bench.py $(BENCH)/data $(BUILD) $(BENCH_REPS)

# ------------------------------------------------------------------ python
# make python: featc's Python layer (python/ext/, libfeatc_python.a)
# and a CPython module per example spec, build/python/NAME.abi3.so (the
# stable ABI of Python 3.11+), beside the featc package (python/featc);
# PYTHONPATH=build/python imports them.  Needs python3-dev and python3-numpy.
PY_INCLUDE := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])" 2>/dev/null)
# NumPy's headers (python/ext/arrays.c makes arrays by its C API; Debian's
# python3-numpy also links them under PY_INCLUDE).
NUMPY_INCLUDE := $(shell $(PYTHON) -c "import numpy; print(numpy.get_include())" 2>/dev/null)
PY_CFLAGS = -isystem $(PY_INCLUDE) $(if $(NUMPY_INCLUDE),-isystem $(NUMPY_INCLUDE)) -fvisibility=hidden
PYBUILD = $(BUILD)/python
PY_PACKAGE = $(wildcard python/featc/*.py)
# Specs whose modules make python builds (the tests add their own).
PY_SPECS = $(SPECS)

$(BUILD)/libfeatc_pic.a: $(RUNTIME_SRC:%.c=$(BUILD)/pic/%.o) $(TOOLRT_SRC:%.c=$(BUILD)/pic/%.o)
	rm -f $@
	$(AR) rcs $@ $^

PY_EXT_SRC = $(addprefix python/ext/,state.c module.c arrays.c batch.c reader.c writer.c records.c schema.c \
                                     prefetch.c shuffle.c segments.c arrow.c parquet.c wait.c)
$(BUILD)/pic/python/ext/%.o: python/ext/%.c python/ext/ext.h $(HEADERS)
	@mkdir -p $(dir $@)
	@test -f $(PY_INCLUDE)/Python.h || { echo "python: no Python.h in '$(PY_INCLUDE)' (make deps installs python3-dev)"; exit 1; }
	$(CC) $(WARN) $(CFLAGS) -fPIC $(PY_CFLAGS) $(CPPFLAGS_PUB) -c $< -o $@

$(BUILD)/libfeatc_python.a: $(PY_EXT_SRC:%.c=$(BUILD)/pic/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(PYBUILD)/gen/%_py.c $(PYBUILD)/gen/%.c $(PYBUILD)/gen/%.h &: specs/%.feat $(BUILD)/featc
	@mkdir -p $(PYBUILD)/gen
	$(BUILD)/featc compile --python -o $(PYBUILD)/gen $<
$(PYBUILD)/gen/%_py.c $(PYBUILD)/gen/%.c $(PYBUILD)/gen/%.h &: tests/bench/%.feat $(BUILD)/featc
	@mkdir -p $(PYBUILD)/gen
	$(BUILD)/featc compile --python -o $(PYBUILD)/gen $<

# A spec's module: its parser, its module file, the Python layer and the
# runtime, as one shared object that exports PyInit_NAME alone.
PY_LINK = $(CC) $(WARN) $(CFLAGS) -fPIC $(PY_CFLAGS) $(CPPFLAGS_PUB) -shared $(LDFLAGS)
PY_LIBS = $(BUILD)/libfeatc_python.a $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc_pic.a $(LIBS_Z) \
          $(LIBS_CODECS) -lm -pthread
$(PYBUILD)/%.abi3.so: $(PYBUILD)/gen/%.c $(PYBUILD)/gen/%_py.c $(BUILD)/libfeatc_python.a \
    $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc_pic.a
	$(PY_LINK) -I$(PYBUILD)/gen -o $@ $(PYBUILD)/gen/$*.c $(PYBUILD)/gen/$*_py.c $(PY_LIBS)

# The bench specs' modules too (make bench's Python rows, test-python).
PY_BENCH_SPECS = wide photo clip
.SECONDARY: $(SPECS:%=$(PYBUILD)/gen/%.c) $(SPECS:%=$(PYBUILD)/gen/%_py.c) \
            $(PY_BENCH_SPECS:%=$(PYBUILD)/gen/%.c) $(PY_BENCH_SPECS:%=$(PYBUILD)/gen/%_py.c)

$(PYBUILD)/featc/%.py: python/featc/%.py
	@mkdir -p $(dir $@)
	cp $< $@

python: $(PY_SPECS:%=$(PYBUILD)/%.abi3.so) $(PY_PACKAGE:python/%=$(PYBUILD)/%) \
        $(BUILD)/libfeatc_python.a $(BUILD)/libfeatc_pic.a $(BUILD)/libfeatc.libs \
        $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc_codecs.libs

# The bench specs' modules, for test-python and make bench.
python-bench: $(PY_BENCH_SPECS:%=$(PYBUILD)/%.abi3.so)

# ------------------------------------------------------------------ install

INSTALL_HDRS = $(wildcard include/featc/*.h)

PC_FILES = runtime/featc.pc.in runtime/featc-fallback.pc.in compiler/featc-compiler.pc.in
CMAKE_FILES = cmake/featcConfig.cmake.in cmake/featcConfigVersion.cmake.in cmake/featcGenerate.cmake
# The pointer size the library is built for, which featcConfigVersion.cmake checks.
SIZEOF_VOID_P = $(shell echo __SIZEOF_POINTER__ | $(CC) $(CFLAGS) -E -P - | tail -n 1)
# ISA-L, when the runtime has it.  featc::runtime_static links it; the .pc
# file leaves it out of Libs.private, so that pkg-config --static still
# makes a fully static program (zlib), and names it in its isal_libs variable.
COMMA := ,
CMAKE_ISAL = $(if $(LIBS_ISAL),-Wl$(COMMA)--push-state$(COMMA)--no-as-needed;isal;-Wl$(COMMA)--pop-state;)
PC_SUBST = -e 's|@LIBS_ISAL@|$(LIBS_ISAL)|g' -e 's|@CMAKE_ISAL@|$(CMAKE_ISAL)|g' \
           -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
           -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
           -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' -e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g'

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(INCLUDEDIR)/featc $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BUILD)/featc $(DESTDIR)$(BINDIR)/featc
	install -m 644 docs/featc.1 $(DESTDIR)$(MANDIR)/man1/featc.1
	install -m 644 $(BUILD)/libfeatc.a $(BUILD)/libfeatc.libs $(BUILD)/libfeatc_fallback.a \
	    $(BUILD)/libfeatc_compiler.a $(BUILD)/libfeatc_codecs.a $(BUILD)/libfeatc_codecs.libs \
	    $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/libfeatc.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libfeatc.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libfeatc.so
	install -m 644 $(INSTALL_HDRS) $(DESTDIR)$(INCLUDEDIR)/featc/
	for pc in $(PC_FILES); do \
	    sed $(PC_SUBST) $$pc > $(DESTDIR)$(PKGCONFIGDIR)/$$(basename $$pc .in) || exit 1; done
	for f in $(CMAKE_FILES); do \
	    sed $(PC_SUBST) $$f > $(DESTDIR)$(CMAKEDIR)/$$(basename $$f .in) || exit 1; done

# make install-python: the featc package into PYTHONDIR, and the Python
# layer's libraries beside the runtime's, so that featc.load compiles specs
# with the installed featc.  (Or, in a virtual environment:
# pip install --no-build-isolation ./python, with make install for the rest.)
# PYTHONDIR is PREFIX/lib/pythonX.Y/site-packages (the posix_prefix scheme),
# except where the interpreter's own default scheme puts PREFIX's packages
# on its path: Debian's posix_local, which reads /usr/local as the prefix /usr
# plus local/, gives /usr/local/lib/python3.Y/dist-packages for the default
# PREFIX, which Debian's python3 searches (its default with base=/usr/local
# would be /usr/local/local/...).  docs/build.md, "Install", says where to look.
PYTHONDIR ?= $(shell $(PYTHON) -c "import sysconfig, os; \
    p = os.path.normpath('$(PREFIX)'); s = sysconfig.get_default_scheme(); \
    d = sysconfig.get_path('purelib', s, vars={'base': os.path.dirname(p)}) \
        if s == 'posix_local' and os.path.basename(p) == 'local' else None; \
    print(d or sysconfig.get_path('purelib', 'posix_prefix', vars={'base': p}))" 2>/dev/null)
install-python: python install
	install -d $(DESTDIR)$(PYTHONDIR)/featc $(DESTDIR)$(LIBDIR)
	install -m 644 $(PY_PACKAGE) $(DESTDIR)$(PYTHONDIR)/featc/
	install -m 644 $(BUILD)/libfeatc_python.a $(BUILD)/libfeatc_pic.a $(DESTDIR)$(LIBDIR)/

uninstall:
	rm -rf $(DESTDIR)$(PYTHONDIR)/featc
	rm -f $(DESTDIR)$(LIBDIR)/libfeatc_python.a $(DESTDIR)$(LIBDIR)/libfeatc_pic.a
	rm -f $(DESTDIR)$(BINDIR)/featc
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libfeatc.a libfeatc.libs libfeatc_fallback.a libfeatc_compiler.a \
	    libfeatc_codecs.a libfeatc_codecs.libs \
	    libfeatc.so.$(VERSION) $(SONAME) libfeatc.so)
	rm -f $(addprefix $(DESTDIR)$(PKGCONFIGDIR)/,$(notdir $(PC_FILES:.in=)))
	rm -f $(addprefix $(DESTDIR)$(CMAKEDIR)/,$(notdir $(CMAKE_FILES:.in=)))
	-rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null
	rm -f $(DESTDIR)$(MANDIR)/man1/featc.1
	rm -rf $(DESTDIR)$(INCLUDEDIR)/featc

# ------------------------------------------------------------------ setup

deps:
	@sh setup/apt-install.sh deps $(BUILD)/log/deps.log $(DEPS_BUILD)

deps-python: deps
	@sh setup/apt-install.sh deps-python $(BUILD)/log/deps-python.log $(DEPS_PYTHON)

# The test tier: its packages, the cross-target suites' libraries and
# emulators (tests/cross/deps.sh), and the npm packages the Arrow tests read
# featc's output with.
deps-test: deps deps-python
	@sh setup/apt-install.sh deps-test $(BUILD)/log/deps-test.log $(DEPS_TEST)
	@if [ "$$(id -u)" = 0 ]; then sh tests/cross/deps.sh || exit 1; \
	else echo "deps-test: then, as root: sh tests/cross/deps.sh (the cross-target suites' extras)"; fi
	@if ! command -v npm >/dev/null 2>&1; then \
	    sh setup/apt-install.sh deps-test $(BUILD)/log/deps-npm.log npm || exit 1; fi
	@mkdir -p $(NPM_DIR) && cp tests/arrow/package.json tests/arrow/package-lock.json $(NPM_DIR)/ && \
	    (cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error) || \
	    { echo "deps-test: npm ci failed (above): the Arrow tests' npm packages come from the npm" \
	           "registry, over HTTPS with the machine's CA certificates"; exit 1; }; \
	    echo "deps-test: npm packages (apache-arrow, nodejs-polars, ...) in $(NPM_DIR)"

# Before make test: every package of the three tiers, or what to run.
deps-check:
	@sh setup/apt-install.sh --check deps-test $(BUILD)/log/deps-test.log \
	    $(DEPS_BUILD) $(DEPS_PYTHON) $(DEPS_TEST)

# make test-fresh: the README's quick start, as written, in a clean Debian
# root (setup/fresh-root.sh); minutes, not part of make test.
test-fresh:
	@sh setup/fresh-root.sh

clean:
	rm -rf $(BUILD)
