# The test suites, included by the Makefile.  tests/README.md is the table
# of what each target runs; `make test` (tests/run.sh) runs them all and
# `make check` the quick ones.  Every suite target is test-NAME and prints
# "NAME: N passed, M failed" lines; every target that rewrites committed
# expectations for review is update-NAME.

TEST_SUITES = test-build test-tables test-unit test-unit-asan test-segment-tsan test-pool-tsan \
              test-splits-bench test-nomalloc test-cxx \
              test-cli test-diag test-breaking test-tfmd test-export test-codegen test-corpus test-infer test-differential \
              test-fuzz-seeds test-install test-readme test-stats test-check-data test-demo
# Suites that build in folders of their own, or only read what test-build
# built: make test (tests/run.sh) runs them from a queue that a second lane
# takes from while the first runs the suites above, and the first joins when
# it is done; longest first (seconds of a quiet CI run on 2 cores of an AMD
# EPYC, i386 native: sanitize 441, python 332, s390x 148, i386 148, riscv64
# 116, warnings 92, arrow 86, small 75, bazel 35, embedded 13, footprint 3),
# so that the lanes end about together.  tests/run.sh prints each suite's
# seconds and lane at the end.
CROSS_SUITES = test-sanitize test-python test-s390x test-i386 test-riscv64 test-warnings \
               test-arrow test-small test-bazel test-embedded test-footprint
ARROW_RANDOM_SPECS = 6
ARROW_RECORDS = 60
CHECK_SUITES = all test-tables test-unit test-cxx test-cli test-diag test-breaking test-tfmd test-export test-codegen test-readme

.PHONY: test check footprint test-float-exhaustive update-tables test-python test-pool-tsan test-splits-bench $(filter test-%,$(TEST_SUITES) $(CROSS_SUITES)) update-codegen update-cat-golden update-diag update-tfmd update-fuzz-seeds \
        update-tables fuzz

# make test's first step, alone: everything the two lanes share, so that they
# never build the same file at once.
test-build: all python python-bench $(BUILD)/bench-data/.made

test: deps-check
	@sh tests/run.sh "$(MAKE)" $(BUILD) $(CORPUS) $(TEST_SUITES) -- $(CROSS_SUITES)

# The quick subset for an edit-compile-test loop (about 3 minutes on 2 cores).
check:
	@sh tests/run.sh "$(MAKE)" $(BUILD) $(CORPUS) $(CHECK_SUITES)

# ------------------------------------------------------------------ test programs
#
# A test or fuzz harness declares the specs it is built with, and any extra
# sources, in its own source, one or more lines of
#     /* test-specs: tests/specs/semantics.feat */
#     /* test-sources: tests/oracle/oracle.c */
# A spec of specs/ is compiled into $(GEN_SPECS), one of tests/specs into
# $(GEN_TESTS), by the featc just built, with --driver.

GEN_TESTS = $(BUILD)/gen-tests
$(GEN_TESTS)/%.c $(GEN_TESTS)/%.h: tests/specs/%.feat $(BUILD)/featc
	@mkdir -p $(GEN_TESTS)
	$(BUILD)/featc compile -o $(GEN_TESTS) --driver $<

declared = $(shell sed -n 's|^/\* test-$(2): \(.*\) \*/$$|\1|p' $(1))
gen_of = $(patsubst specs/%.feat,$(GEN_SPECS)/%.c,$(patsubst tests/specs/%.feat,$(GEN_TESTS)/%.c,$(1)))
# The generated sources and extra sources of harness $(1).
test_deps = $(call gen_of,$(call declared,$(1),specs)) $(call declared,$(1),sources)

TEST_INC = $(CPPFLAGS_ALL) -I$(GEN_SPECS) -I$(GEN_TESTS)
TEST_HDRS = $(wildcard tests/unit/*.h tests/oracle/*.h tests/fuzz/*.h) $(HEADERS) $(ISAL_CHOICE)
TEST_LIBS = $(LIBS_FALLBACK) $(LIBS_Z) -lm -pthread

UNIT_TESTS = test_crc32c test_record test_stream test_fallback test_example test_sequence test_hash test_batch test_seq_direct \
             test_segment test_serialize test_text test_split test_arrow test_parquet test_typed \
             test_rows_direct

# Optimised, against the libraries; ASan + UBSan, with the runtime's sources
# compiled in by clang (its UBSan also checks pointer arithmetic, gcc's does
# not); the segment batcher's threads under ThreadSanitizer.
SAN_CC ?= $(CLANG)
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_SRC = $(RUNTIME_SRC) $(TOOLRT_SRC) $(FALLBACK_SRC)

# The runtime, the tools' runtime, the fallback decoder and protobuf-c's
# Example code, compiled once under ASan + UBSan for every unit test
# ($(BUILD)/san/libsan.a), and once more with the fuzzer's coverage for every
# fuzzer ($(BUILD)/fuzz/libsan.a): each harness used to compile them all
# again (some 20 s a program, half of test-unit-asan and test-fuzz-seeds).
SAN_OBJ = $(SAN_SRC:%.c=$(BUILD)/san/%.o) $(BUILD)/san/gen/fc_example.pb-c.o
FUZZ_OBJ = $(SAN_SRC:%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/obj/gen/fc_example.pb-c.o
$(BUILD)/san/%.o: %.c $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(WARN) -O1 -g $(SAN) $(TEST_INC) -c -o $@ $<
$(BUILD)/san/gen/fc_example.pb-c.o: $(PB_SRC) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(SAN_CC) -O1 -g $(SAN) $(TEST_INC) -x c -std=c99 -w -c -o $@ $<
$(BUILD)/san/libsan.a: $(SAN_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/fuzz/obj/%.o: %.c $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_LIB_CFLAGS) $(TEST_INC) $(FUZZ_INC) -c -o $@ $<
# The compiler, its flex and bison output, and (for fuzz_stats) the CLI's
# sources but main.c, compiled once with the fuzzer's coverage for the five
# fuzzers that take them: each compiled them all again (some 12 s a fuzzer).
FUZZ_COMPILER_OBJ = $(FEATC_SRC:%.c=$(BUILD)/fuzz/obj/%.o) \
                    $(FEATC_GEN:$(BUILD)/gen/%.c=$(BUILD)/fuzz/obj/gen/%.o)
# (with the codecs the CLI links, libfeatc_codecs.a's source, built here
# without the codec libraries: fuzz_stats reads no Parquet)
FUZZ_CLI_OBJ = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(filter-out cli/main.c,$(CLI_SRC)) \
                 runtime/hosted/codecs.c)
$(FUZZ_COMPILER_OBJ) $(FUZZ_CLI_OBJ): FUZZ_INC = -Icompiler -Icli -I$(BUILD)/gen
$(FUZZ_COMPILER_OBJ) $(FUZZ_CLI_OBJ): $(BUILD)/gen/spec_parse.h $(BUILD)/gen/spec_lex.h \
                                      $(BUILD)/gen/templates.h
$(FEATC_GEN:$(BUILD)/gen/%.c=$(BUILD)/fuzz/obj/gen/%.o): $(BUILD)/fuzz/obj/gen/%.o: $(BUILD)/gen/%.c \
                                                         $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_LIB_CFLAGS) $(TEST_INC) $(FUZZ_INC) -c -o $@ $<
$(BUILD)/fuzz/obj/gen/fc_example.pb-c.o: $(PB_SRC) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_LIB_CFLAGS) $(TEST_INC) -w -c -o $@ $<
$(BUILD)/fuzz/libsan.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

define unit_rules
$(BUILD)/tests/$(1): tests/unit/$(1).c $(call test_deps,tests/unit/$(1).c) $(TEST_HDRS) \
                     $(BUILD)/libfeatc.a $(BUILD)/libfeatc_fallback.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(WARN) $$(CFLAGS) $$(TEST_INC) -o $$@ $$< $(call test_deps,tests/unit/$(1).c) \
	    $$(BUILD)/libfeatc_fallback.a $$(BUILD)/libfeatc.a $$(TEST_LIBS)

$(BUILD)/asan/$(1): tests/unit/$(1).c $(call test_deps,tests/unit/$(1).c) $(TEST_HDRS) \
                    $(BUILD)/san/libsan.a
	@mkdir -p $$(dir $$@)
	$$(SAN_CC) $$(WARN) -O1 -g $$(SAN) $$(TEST_INC) -o $$@ $$< $(call test_deps,tests/unit/$(1).c) \
	    $(BUILD)/san/libsan.a $$(TEST_LIBS)

$(BUILD)/tsan/$(1): tests/unit/$(1).c $(call test_deps,tests/unit/$(1).c) $(TEST_HDRS) \
                    $$(SAN_SRC) $$(PB_SRC)
	@mkdir -p $$(dir $$@)
	$$(SAN_CC) $$(WARN) -O1 -g -fsanitize=thread $$(TEST_INC) -o $$@ $$< \
	    $(call test_deps,tests/unit/$(1).c) $$(SAN_SRC) -x c -std=c99 -w $$(PB_SRC) -x none \
	    $$(TEST_LIBS)
endef
$(foreach t,$(UNIT_TESTS) test_nomalloc,$(eval $(call unit_rules,$(t))))

# The codecs with libsnappy's soname one no system has (test_codecs.c):
# codecs.c built into the test, as the build's choice has it otherwise.
$(BUILD)/tests/test_codecs: tests/unit/test_codecs.c runtime/hosted/codecs.c $(TEST_HDRS) \
                            $(BUILD)/libfeatc.a $(CODEC_CHOICE)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(TEST_INC) $(filter-out -DFC_SNAPPY_SONAME=%,$(CPPFLAGS_CODECS)) \
	    $(if $(HAVE_SNAPPY),-DFC_SNAPPY_SONAME=libfeatc-no-such-snappy.so.0) -o $@ $< \
	    runtime/hosted/codecs.c $(BUILD)/libfeatc.a $(LIBS_CODECS) $(if $(HAVE_SNAPPY),-ldl) $(TEST_LIBS)

# Unit suites run with FEATC_CORPUS pointing at the corpus; each runs even if
# an earlier one failed.
test-unit: $(UNIT_TESTS:%=$(BUILD)/tests/%) $(BUILD)/tests/test_codecs
	@rc=0; for t in $(UNIT_TESTS) test_codecs; do FEATC_CORPUS=$(CORPUS) $(BUILD)/tests/$$t || rc=1; done; exit $$rc

test-unit-asan: $(UNIT_TESTS:%=$(BUILD)/asan/%)
	@rc=0; for t in $(UNIT_TESTS); do \
	    FEATC_CORPUS=$(CORPUS) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	        $(BUILD)/asan/$$t >$(BUILD)/asan/$$t.log 2>&1 || rc=1; \
	    sed 's/^\([a-z0-9]*\): \([0-9]* passed\)/\1-asan: \2/' $(BUILD)/asan/$$t.log; \
	done; exit $$rc

# The producer/consumer mode of the segment batcher under TSan.
test-segment-tsan: $(BUILD)/tsan/test_segment
	@$(BUILD)/tsan/test_segment >$(BUILD)/tsan/test_segment.log 2>&1; rc=$$?; \
	    grep -v ' runs, ' $(BUILD)/tsan/test_segment.log | sed 's/^segment:/segment-tsan:/'; \
	    exit $$rc

# make bench's four corpora, and two of them as seekable GZIP, cut into 1..17
# splits by every method (test_split --bench-corpora).
test-splits-bench: $(BUILD)/tests/test_split $(BUILD)/bench-data/.made
	@FEATC_BENCH_DATA=$(BUILD)/bench-data $(BUILD)/tests/test_split --bench-corpora

$(BUILD)/bench-data/.made: $(BUILD)/bench/gen-corpora
	@mkdir -p $(dir $@)
	@$(BUILD)/bench/gen-corpora $(dir $@) >/dev/null
	@touch $@

# The thread pool (and the rest of test_split), the Arrow stream's threads
# and the Parquet reader's (opt.threads) under TSan.
test-pool-tsan: $(BUILD)/tsan/test_split $(BUILD)/tsan/test_arrow $(BUILD)/tsan/test_parquet
	@FEATC_CORPUS=$(CORPUS) $(BUILD)/tsan/test_split >$(BUILD)/tsan/test_split.log 2>&1; rc=$$?; \
	    grep -v '^embedded streams:' $(BUILD)/tsan/test_split.log | sed 's/^split:/split-tsan:/'; \
	    exit $$rc
	@FEATC_CORPUS=$(CORPUS) $(BUILD)/tsan/test_arrow >$(BUILD)/tsan/test_arrow.log 2>&1; rc=$$?; \
	    sed -n 's/^arrow:/arrow-tsan:/p' $(BUILD)/tsan/test_arrow.log; exit $$rc
	@FEATC_CORPUS=$(CORPUS) $(BUILD)/tsan/test_parquet >$(BUILD)/tsan/test_parquet.log 2>&1; \
	    rc=$$?; sed -n 's/^parquet:/parquet-tsan:/p' $(BUILD)/tsan/test_parquet.log; exit $$rc

# The malloc-free proof interposes malloc: no sanitizer (ASan owns malloc).
test-nomalloc: $(BUILD)/tests/test_nomalloc
	@FEATC_CORPUS=$(CORPUS) $(BUILD)/tests/test_nomalloc

# The public headers as C++, with g++ and clang++, linked with the libraries.
CXX_STRICT = -std=c++11 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Werror
test-cxx: $(BUILD)/libfeatc.a $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc_compiler.a
	@mkdir -p $(BUILD)/tests; n=0; for cxx in g++ clang++; do \
	    $$cxx $(CXX_STRICT) -Iinclude -isystem $(BUILD)/gen -o $(BUILD)/tests/headers-$$cxx \
	        tests/unit/test_headers.cpp $(BUILD)/libfeatc_compiler.a \
	        $(BUILD)/libfeatc_fallback.a $(BUILD)/libfeatc.a \
	        $(LIBS_FALLBACK) $(LIBS_Z) && $(BUILD)/tests/headers-$$cxx && n=$$((n + 1)); \
	done; echo "cxx-headers: $$n passed, $$((2 - n)) failed"; [ $$n -eq 2 ]

# The committed CRC and power-of-ten tables equal what their generators write.
$(BUILD)/tools/gen_%: runtime/gen/gen_%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -o $@ $<

test-tables: $(BUILD)/tools/gen_crc32c_tables $(BUILD)/tools/gen_pow10_table
	@n=0; f=0; \
	for t in core/crc32c_tables hosted/pow10_table; do \
	    g=$(BUILD)/tools/gen_$$(basename $$t); o=$(BUILD)/$$(basename $$t).h; \
	    $$g > $$o && cmp -s $$o runtime/$$t.h && n=$$((n + 1)) || \
	        { echo "runtime/$$t.h is stale: make update-tables"; f=$$((f + 1)); }; \
	done; echo "tables: $$n passed, $$f failed"; [ $$f -eq 0 ]

update-tables: $(BUILD)/tools/gen_crc32c_tables $(BUILD)/tools/gen_pow10_table
	$(BUILD)/tools/gen_crc32c_tables > runtime/core/crc32c_tables.h
	$(BUILD)/tools/gen_pow10_table > runtime/hosted/pow10_table.h

# fc_float_shortest against printf and strtof for every positive float32:
# about half an hour on 2 cores, so not in `make test` (test_text checks some
# 300,000 chosen floats there).  Run it whenever number.c's float printer
# changes.
$(BUILD)/tests/float_exhaustive: tests/unit/float_exhaustive.c tests/unit/float_reference.h \
                               $(BUILD)/libfeatc.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $@ $< $(BUILD)/libfeatc.a $(LIBS_Z) -lm -pthread

FLOAT_PARTS ?= $(shell nproc 2>/dev/null || echo 2)
test-float-exhaustive: $(BUILD)/tests/float_exhaustive
	@rc=0; pids=; for i in $$(seq 0 $$(($(FLOAT_PARTS) - 1))); do \
	    $(BUILD)/tests/float_exhaustive $$i $(FLOAT_PARTS) & pids="$$pids $$!"; done; \
	for p in $$pids; do wait $$p || rc=1; done; exit $$rc

# ------------------------------------------------------------------ scripted suites

# On the host, test-cli also builds the Python layer, whose folder the layout
# check (tests/cli/layout.py) reads, and counts the opens of each job with
# an LD_PRELOAD shim (tests/cli/opens.py); the cross and sanitizer lanes,
# which build no Python layer and whose programs take no foreign preload,
# pass CLI_HOST= .
CLI_HOST ?= 1
test-cli: all $(if $(CLI_HOST),python)
	@if [ -n "$(SNAPPY_SONAME)" ] && readelf -d $(BUILD)/featc | grep -q 'NEEDED.*\(libsnappy\|libstdc++\)'; then \
	    echo "cli: featc links libsnappy or libstdc++, which it opens at its first snappy page" \
	         "(SNAPPY_SONAME $(SNAPPY_SONAME)): every start would load C++'s runtime"; exit 1; fi
	@CLI_HOST=$(CLI_HOST) sh tests/cli/test_cli.sh $(BUILD)/featc $(CORPUS) $(BUILD)

# featc check SPEC --data against the generated drivers: every spec over the
# corpus and random records, byte for byte (the C compiler of the build
# builds the drivers: the sanitizer lane's too).
test-check-data: all
	@rm -rf $(BUILD)/check-data && mkdir -p $(BUILD)/check-data
	@CC="$(CC)" $(PYTHON) tests/cli/check_data.py $(BUILD)/featc $(BUILD) $(CORPUS) $(BUILD)/check-data

# featc convert (TFRecords to Arrow IPC and back) read by real Arrow readers:
# apache-arrow (Arrow's JavaScript implementation) and nodejs-polars, which
# make deps installs into $(NPM_DIR); the values against the JSON driver.
# Then hostile IPC files (tests/arrow/hostile.py): featc reads them as
# apache-arrow does or refuses them; and hostile Parquet files
# (tests/arrow/hostile_parquet.py): featc reads them as DuckDB does or
# refuses them with the byte offset; typed tensors' columns in Parquet
# (tests/arrow/typed_parquet.py) read by DuckDB and hyparquet, and back.
test-arrow: all
	@CC="$(CC)" $(PYTHON) tests/arrow/run.py $(BUILD)/featc $(BUILD) $(CORPUS) \
	    $(BUILD)/arrow-test $(NPM_DIR)/node_modules $(ARROW_RANDOM_SPECS) $(ARROW_RECORDS)
	@$(PYTHON) tests/arrow/hostile.py $(BUILD)/featc $(BUILD)/arrow-hostile $(NPM_DIR)/node_modules
	@$(PYTHON) tests/arrow/hostile_parquet.py $(BUILD)/featc $(BUILD)/parquet-hostile \
	    $(NPM_DIR)/node_modules
	@$(PYTHON) tests/arrow/typed_parquet.py $(BUILD)/featc $(BUILD)/parquet-typed \
	    $(NPM_DIR)/node_modules

# featc stats: its HTML report and the comparison report of --compare in
# headless Chromium, and its memory on a 1 GB file (the figures are checked
# in test-cli).
test-stats: all
	@rm -rf $(BUILD)/stats-test && mkdir -p $(BUILD)/stats-test
	@$(PYTHON) tests/cli/stats_html.py $(BUILD)/featc $(CORPUS) $(BUILD)/stats-test; a=$$?; \
	    $(PYTHON) tests/cli/stats_compare.py $(BUILD)/featc $(CORPUS) $(BUILD)/stats-test; c=$$?; \
	    $(PYTHON) tests/cli/stats_check.py $(BUILD)/featc $(CORPUS) $(BUILD)/stats-test --memory; \
	    b=$$?; rm -f $(BUILD)/stats-test/big.tfrecord; [ $$a -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ]

# make install into a temporary prefix, a consumer built from it, make uninstall.
test-install: all python
	@sh tests/install/run.sh "$(MAKE)" $(BUILD) $(CORPUS)
# The same consumer as a Bazel workspace, built offline by Debian's Bazel
# with @featc built from this tree (tests/install/bazel.sh).
test-bazel: all
	@sh tests/install/bazel.sh $(BUILD) $(CORPUS)

# Cross targets: suites built into their own folder by another compiler and
# run there, through qemu-user where the kernel cannot run the programs
# itself (tests/cross/deps.sh, from make deps, sets that up).  Each corpus
# driver must also print byte for byte what the host's prints
# (FEATC_HOST_BUILD, tests/oracle/run.sh).
FEATC_CROSS_LIBS ?= /usr/local/lib/featc-cross
CROSS_HOST = FEATC_HOST_BUILD=$(abspath $(BUILD))
# 32-bit x86 (x87 floating point, 32-bit size_t), with gcc -m32
I386_SUITES = test-unit test-nomalloc test-cli test-corpus
test-i386: all
	@sh tests/cross/can_run.sh i386 "$(CC) -m32"
	@$(CROSS_HOST) sh tests/cross/suites.sh i386 "$(MAKE)" $(I386_SUITES) -- \
	    BUILD=$(BUILD)/i386 CC="$(CC) -m32" CLI_HOST= \
	    LIBS_FALLBACK="-L$(FEATC_CROSS_LIBS)/i386 -lprotobuf-c" CORPUS=$(CORPUS)
# big-endian 64-bit s390x, with clang (Debian's gcc-multilib, for i386,
# conflicts with every gcc cross compiler); its C library from
# libc6-dev-s390x-cross, zlib and protobuf-c from Debian's s390x packages
S390X_CC ?= clang --target=s390x-linux-gnu
S390X_SUITES = test-unit test-nomalloc test-corpus
test-s390x: all
	@QEMU_LD_PREFIX=/usr/s390x-linux-gnu sh tests/cross/can_run.sh s390x "$(S390X_CC)"
	@QEMU_LD_PREFIX=/usr/s390x-linux-gnu $(CROSS_HOST) sh tests/cross/suites.sh s390x "$(MAKE)" \
	    $(S390X_SUITES) -- BUILD=$(BUILD)/s390x CC="$(S390X_CC)" \
	    LIBS_Z=$(FEATC_CROSS_LIBS)/s390x/libz.a \
	    LIBS_FALLBACK=$(FEATC_CROSS_LIBS)/s390x/libprotobuf-c.a CORPUS=$(CORPUS)

# 64-bit little-endian riscv64 (RV64GC, lp64d), with clang; its C library
# from libc6-dev-riscv64-cross, zlib and protobuf-c built by make deps from
# Debian's sources (Debian 12 has no riscv64 packages to fetch)
RISCV64_CC ?= clang --target=riscv64-linux-gnu
RISCV64_SUITES = test-unit test-nomalloc test-corpus
test-riscv64: all
	@QEMU_LD_PREFIX=/usr/riscv64-linux-gnu sh tests/cross/can_run.sh riscv64 "$(RISCV64_CC)"
	@QEMU_LD_PREFIX=/usr/riscv64-linux-gnu $(CROSS_HOST) sh tests/cross/suites.sh riscv64 \
	    "$(MAKE)" $(RISCV64_SUITES) -- BUILD=$(BUILD)/riscv64 CC="$(RISCV64_CC)" \
	    LIBS_Z=$(FEATC_CROSS_LIBS)/riscv64/libz.a \
	    LIBS_FALLBACK=$(FEATC_CROSS_LIBS)/riscv64/libprotobuf-c.a CORPUS=$(CORPUS)

# The main job (make demo) as a suite: examples/demo.sh's exit status.
test-demo: all
	@sh examples/demo.sh $(BUILD) > $(BUILD)/demo.log 2>&1 && echo "demo: 1 passed, 0 failed" || \
	    { cat $(BUILD)/demo.log; echo "demo: 0 passed, 1 failed"; exit 1; }

# Cortex-M4, freestanding: the generated tutorial and taobao parsers with
# the memory reader, by arm-none-eabi-gcc and clang, linked -nostdlib with
# newlib's mem* and libgcc only, run under qemu-arm, equal to the host.
test-embedded: all
	@sh tests/embedded/run.sh $(BUILD)/featc $(BUILD)
# The footprint table of docs/embedded.md: ROM, RAM and deepest stack of the
# parse path, reader+parse and parse+serialize, Cortex-M4 and x86-64.
footprint: all
	@PYTHON=$(PYTHON) sh tests/embedded/footprint.sh $(BUILD)/featc $(BUILD)
# The budgets of that table, asserted: the default -Os M4 tutorial parse
# within 8,192 bytes with newlib's mem* and libgcc and 512 bytes of stack;
# without texts, no larger than nanopb's PB_NO_ERRMSG decoder.
test-footprint: all
	@PYTHON=$(PYTHON) sh tests/embedded/footprint.sh $(BUILD)/featc $(BUILD) check
# The small-target switches on the host: generated parsers without their
# fast path, the 64-byte CRC table, -Os; the unit suites and the corpus
# drivers, each driver's output equal to the default build's.
test-small: all
	@$(CROSS_HOST) sh tests/cross/suites.sh small "$(MAKE)" test-unit test-corpus -- \
	    BUILD=$(BUILD)/small CPPFLAGS="-DFC_NO_FAST_PATH -DFC_CRC_TINY" CFLAGS="-Os -g" CORPUS=$(CORPUS)

# featc itself, its libraries and every generated driver built by clang with
# ASan + UBSan (the flags in CC, so that the test scripts' own builds get them
# too), over the CLI, corpus, infer, check --data and Arrow suites (the last
# with fewer random specs); the first report aborts.
SANITIZE_CC = clang -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-sanitize: all
	@ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    sh tests/cross/suites.sh asan "$(MAKE)" test-cli test-tfmd test-corpus test-infer test-check-data \
	    test-arrow -- \
	    BUILD=$(BUILD)/asan CC="$(SANITIZE_CC)" CFLAGS="-O1 -g" CORPUS=$(CORPUS) CLI_HOST= \
	    NPM_DIR=$(abspath $(NPM_DIR)) ARROW_RANDOM_SPECS=1 ARROW_RECORDS=20

# -Werror clean under clang, clang -m32, and the FC_NO_HW_CRC and
# FC_NO_POSIX switches with both compilers.
test-warnings: all
	@sh tests/cross/warnings.sh "$(MAKE)" $(BUILD) $(FEATC_CROSS_LIBS)

# The snippets of README.md and docs/*.md: shell blocks and transcripts run,
# C blocks compiled (tests/readme/run.py says how they are marked).
test-readme: all python
	@$(PYTHON) tests/readme/run.py . $(BUILD)

test-diag: $(BUILD)/featc
	@sh tests/diag/run.sh $(BUILD)/featc

# featc breaking: a golden per rule, no change, --rules, git:REV:PATH; then
# each rule's claim on data, through the pairs' generated Python modules
test-breaking: $(BUILD)/featc python
	@sh tests/breaking/run.sh $(BUILD)/featc
	@rm -rf $(BUILD)/breaking-claims && mkdir -p $(BUILD)/breaking-claims
	@CC="$(CC)" $(PYTHON) tests/breaking/claims.py $(BUILD)/featc $(BUILD) $(BUILD)/breaking-claims

# featc export --tf against the generated descriptors, every spec
test-export: all
	@PYTHON=$(PYTHON) CC="$(CC)" sh tests/export/run.sh $(BUILD)/featc $(BUILD)

# TensorFlow Metadata: featc import --tfmd on each schema of tests/tfmd
# against its golden spec, warnings or diagnostics (the specs compiled, and
# read the corpus files they describe); featc export --tfmd of every spec,
# read by protobuf's own text parser (tests/tfmd/check_export.py); featc
# stats --tfmd-out read by protobuf against stats --json (check_stats.py);
# featc validate on files with each anomaly planted (check_validate.py).
test-tfmd: all
	@sh tests/tfmd/run.sh $(BUILD)/featc $(CORPUS) $(BUILD)/tfmd
	@rm -rf $(BUILD)/tfmd/random && mkdir -p $(BUILD)/tfmd/random && \
	    $(PYTHON) tests/oracle/random_specs.py 11 12 $(BUILD)/tfmd/random >/dev/null && \
	    $(PYTHON) tests/tfmd/check_export.py $(BUILD)/featc $(BUILD)/tfmd/export specs/*.feat \
	        tests/specs/*.feat tests/tfmd/*.feat $(BUILD)/tfmd/random/*.feat
	@$(PYTHON) tests/tfmd/check_stats.py $(BUILD)/featc $(CORPUS) $(BUILD)/tfmd/stats
	@$(PYTHON) tests/tfmd/check_validate.py $(BUILD)/featc $(BUILD)/tfmd/validate
	@rm -rf $(BUILD)/tfmd/drift && \
	    $(PYTHON) tests/tfmd/check_drift.py $(BUILD)/featc $(CORPUS) $(BUILD)/tfmd/drift

update-tfmd: all
	@sh tests/tfmd/run.sh $(BUILD)/featc $(CORPUS) $(BUILD)/tfmd update

update-diag: $(BUILD)/featc
	@sh tests/diag/run.sh $(BUILD)/featc update

test-codegen: all
	@sh tests/codegen/run.sh $(BUILD)/featc $(BUILD)

update-codegen: all
	@sh tests/codegen/run.sh $(BUILD)/featc $(BUILD) update

# Rewrites tests/cli/cat_golden.tsv (featc cat's output over the corpus, by
# hash) from this build, for review.
update-cat-golden: all
	@$(PYTHON) tests/cli/cat_golden.py $(BUILD)/featc $(CORPUS) tests/cli/cat_golden.tsv --update

# Generated parsers vs the protobuf-c oracle: the specs of specs/ on the
# corpus files they describe, and DIFF_SPECS random specs x DIFF_RECORDS
# random (often invalid) records, plus every spec of specs/ and tests/specs.
DIFF_SPECS ?= 20
DIFF_RECORDS ?= 5000
test-corpus: all
	@sh tests/oracle/run.sh corpus $(BUILD)/featc $(BUILD) $(CORPUS)

# The Python modules and package: featc.load, featc.dask on a LocalCluster
# (tests/python/test_dask.py), then every corpus spec's, tests/specs' and
# PY_RANDOM_SPECS random specs' module against the C batch API, through
# their JSON drivers (tests/python/run.sh).
PY_RANDOM_SPECS ?= 6
test-python: all python python-bench $(BUILD)/bench-data/.made
	@$(PYTHON) tests/python/test_dask.py $(BUILD) $(CORPUS) $(BUILD)/bench-data \
	    $(BUILD)/pytest/dask >$(BUILD)/pytest-dask.log 2>&1; rc=$$?; \
	    grep '^dask: ' $(BUILD)/pytest-dask.log; exit $$rc
	@rm -rf $(BUILD)/pytest/shrink && mkdir -p $(BUILD)/pytest/shrink && \
	    $(PYTHON) tests/cli/shrink.py --python $(BUILD)/python tutorial $(BUILD)/pytest/shrink
	@sh tests/python/run.sh $(BUILD)/featc $(BUILD) $(CORPUS) $(PY_RANDOM_SPECS)

test-differential: all
	@sh tests/oracle/run.sh random $(BUILD)/featc $(BUILD) $(DIFF_SPECS) $(DIFF_RECORDS)

# featc infer on every Example/SequenceExample file of the corpus, and on
# keys no C name can hold: infer, compile, build the driver, read back,
# compare with the fallback decoder.
test-infer: all
	@mkdir -p $(BUILD)/infer-inputs
	@$(PYTHON) tests/cli/infer_inputs.py $(BUILD)/infer-inputs
	@sh tests/oracle/infer.sh $(BUILD)/featc $(BUILD) $(CORPUS) \
	    $(abspath $(BUILD))/infer-inputs/keys.tfrecord

# ------------------------------------------------------------------ fuzzers

FUZZERS = fuzz_reader fuzz_stream fuzz_sync fuzz_index fuzz_claims fuzz_stats fuzz_fallback fuzz_parser fuzz_seq fuzz_batch fuzz_segment fuzz_spec \
          fuzz_arrow fuzz_parquet fuzz_rows_direct \
          fuzz_dynamic fuzz_tfmd fuzz_drift fuzz_breaking
FUZZ_CFLAGS = -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIB_CFLAGS = -std=c99 -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
                  -fno-sanitize-recover=all

define fuzz_rule
$(BUILD)/fuzz/$(1): tests/fuzz/$(1).c $(call test_deps,tests/fuzz/$(1).c) $(TEST_HDRS) \
                    $(BUILD)/fuzz/libsan.a
	@mkdir -p $$(dir $$@)
	$$(CLANG) $$(FUZZ_CFLAGS) $$(TEST_INC) -o $$@ $$< $(call test_deps,tests/fuzz/$(1).c) \
	    $(BUILD)/fuzz/libsan.a $$(TEST_LIBS)
endef
$(foreach f,$(filter-out fuzz_spec fuzz_tfmd fuzz_dynamic fuzz_stats fuzz_drift fuzz_breaking fuzz_arrow fuzz_parquet,$(FUZZERS)),$(eval $(call fuzz_rule,$(f))))

# Arrow input: the generated specs' messages, and messages the compiler
# describes at run time (the extreme dimensions).
# The Parquet reader with the decompressors of runtime/hosted/codecs.c and
# the libraries the build found for them.
$(BUILD)/fuzz/fuzz_parquet: tests/fuzz/fuzz_parquet.c $(call test_deps,tests/fuzz/fuzz_parquet.c) \
                            $(TEST_HDRS) $(BUILD)/fuzz/libsan.a $(CODEC_CHOICE)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(TEST_INC) $(CPPFLAGS_CODECS) -o $@ $< \
	    $(call test_deps,tests/fuzz/fuzz_parquet.c) $(BUILD)/fuzz/libsan.a $(TEST_LIBS) $(LIBS_CODECS)

$(BUILD)/fuzz/fuzz_arrow: tests/fuzz/fuzz_arrow.c $(call test_deps,tests/fuzz/fuzz_arrow.c) \
                          $(TEST_HDRS) $(BUILD)/fuzz/libsan.a $(FUZZ_COMPILER_OBJ)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(TEST_INC) -o $@ $< $(call test_deps,tests/fuzz/fuzz_arrow.c) \
	    $(FUZZ_COMPILER_OBJ) $(BUILD)/fuzz/libsan.a $(TEST_LIBS)

# validate --against's statistics reader and measures, alone.
$(BUILD)/fuzz/fuzz_drift: tests/fuzz/fuzz_drift.c cli/commands/stats/drift.c cli/commands/stats/drift_read.c \
                          cli/commands/stats/drift.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -Icli -o $@ $< cli/commands/stats/drift.c cli/commands/stats/drift_read.c -lm

# featc stats, the whole command: the record tools and the compiler behind
# --spec, without main.
$(BUILD)/fuzz/fuzz_stats: tests/fuzz/fuzz_stats.c $(TEST_HDRS) $(BUILD)/fuzz/libsan.a \
                          $(FUZZ_CLI_OBJ) $(FUZZ_COMPILER_OBJ)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(TEST_INC) -Icli -Icompiler -I$(BUILD)/gen -o $@ $< \
	    $(FUZZ_CLI_OBJ) $(FUZZ_COMPILER_OBJ) $(BUILD)/fuzz/libsan.a $(TEST_LIBS)

# Messages described at run time against the generated parsers: the
# compiler's sources too, and the folder of the specs it reads at start.
$(BUILD)/fuzz/fuzz_dynamic: tests/fuzz/fuzz_dynamic.c $(call test_deps,tests/fuzz/fuzz_dynamic.c) \
                            $(TEST_HDRS) $(BUILD)/fuzz/libsan.a $(FUZZ_COMPILER_OBJ)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(TEST_INC) -Icompiler -I$(BUILD)/gen \
	    -DFUZZ_SPECS_DIR='"$(abspath tests/specs)"' -o $@ $< \
	    $(call test_deps,tests/fuzz/fuzz_dynamic.c) $(FUZZ_COMPILER_OBJ) \
	    $(BUILD)/fuzz/libsan.a $(TEST_LIBS)

# The compiler alone, through featc.h: fuzz_spec (the spec compiler, flex and
# bison output included), fuzz_breaking (two specs compared), fuzz_tfmd
# (featc import --tfmd, the text-format reader included).
$(addprefix $(BUILD)/fuzz/,fuzz_spec fuzz_breaking fuzz_tfmd): $(BUILD)/fuzz/%: tests/fuzz/%.c \
    $(FUZZ_COMPILER_OBJ) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CPPFLAGS_PUB) -Icompiler -I$(BUILD)/gen -o $@ $< $(FUZZ_COMPILER_OBJ) -lm

# Runs each fuzzer once over its committed seeds (no fuzzing): a regression test.
test-fuzz-seeds: $(FUZZERS:%=$(BUILD)/fuzz/%)
	@for f in $(FUZZERS); do \
	    $(BUILD)/fuzz/$$f -runs=0 tests/fuzz/seeds/$$f >$(BUILD)/fuzz/$$f.log 2>&1 || \
	        { cat $(BUILD)/fuzz/$$f.log; echo "fuzz-seeds: 0 passed, 1 failed"; exit 1; }; \
	done; echo "fuzz-seeds: $(words $(FUZZERS)) passed, 0 failed"

# Regenerates the committed seed corpora with featc's own writer.
update-fuzz-seeds: $(BUILD)/libfeatc.a
	@mkdir -p $(BUILD)/tools $(FUZZERS:%=tests/fuzz/seeds/%)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $(BUILD)/tools/make_seeds tests/fuzz/make_seeds.c \
	    $(BUILD)/libfeatc.a $(LIBS_Z)
	$(BUILD)/tools/make_seeds tests/fuzz/seeds/fuzz_reader tests/fuzz/seeds/fuzz_fallback \
	    tests/fuzz/seeds/fuzz_parser tests/fuzz/seeds/fuzz_seq tests/fuzz/seeds/fuzz_batch \
	    tests/fuzz/seeds/fuzz_sync
	cp tests/fuzz/seeds/fuzz_reader/* tests/fuzz/seeds/fuzz_stream/
	for f in specs/*.feat tests/specs/*.feat; do cp $$f tests/fuzz/seeds/fuzz_spec/spec-$${f##*/}; done
	for f in tests/diag/*.feat; do cp $$f tests/fuzz/seeds/fuzz_spec/diag-$${f##*/}; done
	for f in tests/breaking/*.old.feat; do n=$${f%.old.feat}; \
	    { cat $$f; printf '\n===\n'; cat $$n.new.feat; } > tests/fuzz/seeds/fuzz_breaking/$${n##*/}; done
	for f in tests/tfmd/*.pbtxt; do cp $$f tests/fuzz/seeds/fuzz_tfmd/$${f##*/}; done

# make fuzz: libFuzzer on every fuzzer for FUZZ_SECONDS each.
fuzz: $(FUZZERS:%=$(BUILD)/fuzz/%)
	@for f in $(FUZZERS); do \
	    mkdir -p $(BUILD)/fuzz/corpus-$$f; \
	    echo "fuzzing $$f for $(FUZZ_SECONDS)s"; \
	    dict=; [ -f tests/fuzz/$$f.dict ] && dict=-dict=tests/fuzz/$$f.dict; \
	    $(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -artifact_prefix=$(BUILD)/fuzz/$$f- $$dict \
	        $(BUILD)/fuzz/corpus-$$f tests/fuzz/seeds/$$f || exit 1; \
	done
