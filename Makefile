# sqlite-quant: a SQLite extension for quantizing float tensors stored as BLOBs.
#
# Targets, one line each (`make help` prints this list; tests/makefile.test
# checks that it names every target of this file, and only those).  Checks
# are test-NAME; what CI runs is .ci/run.  Details beside each rule.
#
#   all                        dist/quant.so, the loadable extension, and
#                              dist/sqlite-quant, the command-line tool (default)
#   test-cli                   the command-line tool: outputs, errors, exit codes
#   help                       this list
#   test                       the Tcl suite on every path, test-kernels, test-cli
#   test-tcl                   the Tcl suite alone, on every kernel path
#   test-catalogue             the generated files are what ext/catalogue.toml makes
#   test-docs                  every link of the docs resolves, every example runs
#   test-asan                  test and test-cli, against ASan + UBSan builds
#   test-kernels               every vector kernel path against the scalar one
#   test-kernels-long          test-kernels and all 2^32 float32s via f16/bf16
#   test-kernels-aarch64       the NEON kernels, built for aarch64, under qemu
#   test-s390x                 big-endian: kernels and the SQL catalog on s390x
#   test-oom                   every allocation of every catalog query failed
#   test-locale                the catalog in the C locale and in de_DE.UTF-8
#   test-fuzz                  a short fixed-seed fuzz run over the corpus
#   test-npy-core              the .npy/.npz readers' C test (ASan + UBSan)
#   test-gguf-core             the GGUF reader's C test (ASan + UBSan)
#   test-safetensors-core      the safetensors reader's C test (ASan + UBSan)
#   test-onnx-core             the ONNX reader's C test (ASan + UBSan)
#   test-tflite-core           the TFLite reader's C test (ASan + UBSan)
#   test-inflate-core          the DEFLATE decoder's C test (ASan + UBSan)
#   test-ggml                  every path's ggml kernels against ggml itself
#   test-gguf-write            GGUF files against ggml's gguf code, both ways
#   test-gguf-export           the demo's GGUF export, loaded by ggml
#   test-llama-quantize        sqlite-quant quantize against llama.cpp's own
#   test-llama-run             its files run in llama.cpp; KL per mixture
#   test-onnx-export           the demo's ONNX export, run in ONNX Runtime
#   test-bnb4                  NF4/FP4: decoding against ONNX Runtime's MatMulBnb4,
#                              the quantizer against its numpy port, fresh data
#   test-onnx-codes            float8 codes against ONNX Runtime on fresh data
#   test-file-crash            the path writers killed mid-write, on a full disk
#   test-torch                 registry rows as PyTorch quantized tensors
#   test-import                the demo's SQL import against a Python importer
#   test-registry-concurrency  the registry scripts in several processes at once
#   test-registry-kill         the registry scripts killed with SIGKILL midway
#   test-python                the wheel, installed in a throwaway venv
#   test-node                  the npm tarball, installed in a throwaway project
#   test-install               make install into a DESTDIR, used, uninstalled
#   test-amalgamation          the one-file build: compilers, SQLITE_CORE, no-fs
#   test-sqlite-versions       the suite on SQLite 3.31.1 and the newest on npm
#   test-audio                 the demo's test audio, made twice and compared
#   test-plot                  the picture's policy panel on fixture evaluations
#   test-cluster               the registry on a 3-node dqlite cluster (root)
#   test-ensure-deps           ensure-deps.sh waiting out another apt's lock
#   test-large                 a tensor past a BLOB's size (by hand; ~10 GB)
#   demo                       the main job, end to end (examples/demo.sh)
#   demo-audio                 the demo's test audio into build/demo/audio
#   bench                      benchmark tables
#   fuzz                       libFuzzer over the SQL surface and the readers
#   amalgamation               dist/sqlite-quant.c: the extension in one C file
#   install                    extension, header, static lib, pkg-config file
#   uninstall                  remove what install wrote
#   wheel                      the Python wheel in dist/
#   npm-pack                   the npm tarball in dist/
#   ggml-lib                   fetch ggml's library for the ggml comparisons
#   llama-lib                  fetch llama.cpp's library for test-llama-quantize
#   onnxruntime                fetch ONNX Runtime for the demo's evaluation
#   deps                       install the system packages the suite needs
#   catalogue                  regenerate what ext/catalogue.toml declares
#   clean                      remove build/ and dist/
#   kernel-test kernel-test-long kernel-test-aarch64 fuzz-ci cluster-test
#                              the old names of five of the targets above
#
# Missing system packages are installed by tests/ensure-deps.sh when run as
# root or with sudo; otherwise it prints the apt-get line to run.

# The version's one source: SQLITE_QUANT_VERSION in include/sqlite_quant.h.
# q_version(), the pkg-config file and the Python and Node packages take it
# from there.
VERSION := $(shell sed -n 's/^\#define SQLITE_QUANT_VERSION "\(.*\)"/\1/p' include/sqlite_quant.h)

CC      ?= cc
CFLAGS  ?= -O2 -g
QUANT_CFLAGS = -std=c11 -ffp-contract=off -fPIC -fvisibility=hidden \
               -Wall -Wextra -Wdouble-promotion -Wshadow -Iinclude -Iext
LDLIBS  = -lm

# The loadable extension: dist/quant.so, or dist/quant.dylib on macOS (not
# tested here).  Its base name stays quant: SQLite derives the entry point,
# sqlite3_quant_init, from it.  -z defs: a symbol no object defines is a link
# error, not a library that fails to load.
ifeq ($(shell uname -s),Darwin)
SO     = dylib
SHARED = -dynamiclib
else
SO     = so
SHARED = -shared -Wl,-z,defs
endif

# Every float operation must round to float32, as on x86-64 and ARM.  gcc in
# strict C11 mode keeps float expressions in double where the ABI says so
# (s390x: FLT_EVAL_METHOD 1), one ulp away from every other host;
# -fexcess-precision=fast makes it use the CPU's float instructions.  clang
# never adds excess precision and rejects the flag, so it is added only where
# accepted.  kernels_internal.h refuses to build without it.
EXCESS_FLAG = -fexcess-precision=fast
EXCESS_PRECISION := $(shell $(CC) -Werror $(EXCESS_FLAG) -x c -c /dev/null \
                      -o /dev/null 2>/dev/null && echo $(EXCESS_FLAG))
QUANT_CFLAGS += $(EXCESS_PRECISION)
# Build outputs do not depend on where the checkout lives: the debug
# information names sources relative to it, so two checkouts build the same
# bytes (and the wheel and npm tarball, which carry the stripped library,
# keep its build ID).
QUANT_CFLAGS += -ffile-prefix-map=$(CURDIR)=.

KERNEL_SRC  = $(wildcard ext/kernels/*.c)
CORE_SRC    = $(wildcard ext/core/*.c)
FORMATS_SRC = $(wildcard ext/formats/*.c)
SQL_SRC     = $(wildcard ext/sql/*.c)
SRC         = $(SQL_SRC) $(FORMATS_SRC) $(CORE_SRC) $(KERNEL_SRC)
HDR         = $(wildcard include/*.h ext/*/*.h)

# Every object is compiled once per build flavour and shared by whatever
# links it: build/obj/ (the extension, the kernel tests, the benchmarks),
# build/asan/ (the sanitizer build and the C tests of the readers),
# build/s390x/obj/, build/aarch64/obj/, build/fuzz/ (clang, libFuzzer).
# A test's own .c is an object of its flavour too (build/obj/tests/...).
# Each compile writes the headers it read (-MMD; -MP: a deleted header is
# no error) into a .d file beside the object, included below, so touching
# a header rebuilds only the objects that include it.
DEPFLAGS = -MMD -MP
OBJ      = $(SRC:%.c=build/obj/%.o)
ASAN_OBJ = $(SRC:%.c=build/asan/%.o)
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
            -fno-omit-frame-pointer
# The objects below the SQL layer, for the programs that test them alone.
KERNEL_OBJ      = $(KERNEL_SRC:%.c=build/obj/%.o)
ASAN_KERNEL_OBJ = $(KERNEL_SRC:%.c=build/asan/%.o)
ASAN_BELOW_SQL  = $(FORMATS_SRC:%.c=build/asan/%.o) \
                  $(CORE_SRC:%.c=build/asan/%.o) $(ASAN_KERNEL_OBJ)

DEPS = sh tests/ensure-deps.sh

.PHONY: all help test test-asan test-tcl test-kernels test-kernels-long \
        test-npy-core test-gguf-core test-safetensors-core test-inflate-core \
        test-onnx-core test-tflite-core \
        test-kernels-aarch64 test-s390x test-oom test-locale demo bench deps \
        fuzz test-fuzz ggml-lib test-ggml test-gguf-write test-file-crash \
        test-torch test-import test-registry-concurrency test-registry-kill \
        clean kernel-test kernel-test-long kernel-test-aarch64 fuzz-ci \
        cluster-test test-cli llama-lib test-llama-quantize test-llama-run
all: dist/quant.$(SO) dist/sqlite-quant

# The header's list of targets, as it stands.
help:
	@sed -n '/^# Targets/,/^# Missing/{/^#   /s/^#   //p}' $(firstword $(MAKEFILE_LIST))

# The old names.
kernel-test: test-kernels
kernel-test-long: test-kernels-long
kernel-test-aarch64: test-kernels-aarch64
fuzz-ci: test-fuzz
cluster-test: test-cluster

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(QUANT_CFLAGS) $(DEPFLAGS) -c $< -o $@

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(QUANT_CFLAGS) $(SAN_FLAGS) $(TEST_CFLAGS) $(DEPFLAGS) -c $< -o $@

dist/quant.$(SO): $(OBJ)
	@mkdir -p dist
	$(CC) $(CFLAGS) $(SHARED) -o $@ $(OBJ) $(LDLIBS)

# The command-line tool (cli/, docs/CLI.md): the extension linked in.  What
# calls SQLite (ext/sql, and ext/formats and ext/core for sqlite3_malloc) is
# compiled again with SQLITE_CORE, the sqlite3_* calls direct rather than
# through a loader's table; the kernels, which never call SQLite, are the
# loadable file's objects.
CLI_SRC = $(wildcard cli/*.c)
CLI_OBJ = $(CLI_SRC:%.c=build/cli/%.o) \
          $(SQL_SRC:%.c=build/cli/%.o) $(FORMATS_SRC:%.c=build/cli/%.o) \
          $(CORE_SRC:%.c=build/cli/%.o) $(KERNEL_OBJ)
build/cli/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(QUANT_CFLAGS) -DSQLITE_CORE $(DEPFLAGS) -c $< -o $@
dist/sqlite-quant: $(CLI_OBJ)
	@mkdir -p dist
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) -lsqlite3 $(LDLIBS)
test-cli: dist/sqlite-quant
	sh tests/cli/run.sh dist/sqlite-quant

# The tool under AddressSanitizer + UBSan, for test-asan: the same layers,
# instrumented (the kernels are build/asan's).
ASAN_CLI_OBJ = $(CLI_SRC:%.c=build/asan-cli/%.o) \
               $(SQL_SRC:%.c=build/asan-cli/%.o) \
               $(FORMATS_SRC:%.c=build/asan-cli/%.o) \
               $(CORE_SRC:%.c=build/asan-cli/%.o) $(ASAN_KERNEL_OBJ)
build/asan-cli/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(QUANT_CFLAGS) $(SAN_FLAGS) -DSQLITE_CORE $(DEPFLAGS) -c $< -o $@
build/asan/sqlite-quant: $(ASAN_CLI_OBJ)
	$(CC) $(SAN_FLAGS) -o $@ $(ASAN_CLI_OBJ) -lsqlite3 $(LDLIBS)

build/asan/quant.so: $(ASAN_OBJ)
	$(CC) -shared $(SAN_FLAGS) -o $@ $(ASAN_OBJ) $(LDLIBS)

deps:
	@$(DEPS) test

# tests/ensure-deps.sh waits for another package manager's lock instead of
# failing (root; ~30 s; in a private mount namespace, so the machine's apt
# is untouched).
.PHONY: test-ensure-deps
test-ensure-deps:
	@$(DEPS) test
	sh tests/ensure-deps/lock_test.sh

# Kernel unit tests: every vector path against the scalar reference.  The
# CRC-32 paths are also checked against zlib's crc32 itself, and the bench
# times them against it, where zlib.h is installed (zlib1g-dev: `make deps`
# installs it); without it the test says so and uses its pinned zlib values.
ZLIB_OK := $(shell echo '\#include <zlib.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
ZLIB_FLAGS = $(if $(ZLIB_OK),-DSQ_TEST_ZLIB)
ZLIB_LIBS  = $(if $(ZLIB_OK),-lz)
build/obj/tests/kernel_test.o build/obj/bench/bench_kernels.o: QUANT_CFLAGS += $(ZLIB_FLAGS)
build/asan/tests/kernel_test.o: TEST_CFLAGS = $(ZLIB_FLAGS)
build/kernel_test: build/obj/tests/kernel_test.o $(KERNEL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(ZLIB_LIBS) $(LDLIBS)

test-kernels: build/kernel_test
	./build/kernel_test

# Adds every one of the 2^32 float32 patterns through f16 and bf16 (~10 s).
test-kernels-long: build/kernel_test
	./build/kernel_test --long

# The NEON path, proven on an aarch64 build under qemu-user.
AARCH64_CC = aarch64-linux-gnu-gcc
build/aarch64/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(CFLAGS) $(QUANT_CFLAGS) $(DEPFLAGS) -c $< -o $@
build/kernel_test_aarch64: build/aarch64/obj/tests/kernel_test.o \
                           $(KERNEL_SRC:%.c=build/aarch64/obj/%.o)
	$(AARCH64_CC) -static $(CFLAGS) -o $@ $^ $(LDLIBS)

test-kernels-aarch64:
	@$(DEPS) aarch64
	@$(MAKE) --no-print-directory build/kernel_test_aarch64
	qemu-aarch64 ./build/kernel_test_aarch64

# Big-endian proof on s390x under qemu-user: the kernel tests (scalar, the
# only path there), then the extension and the SQL host built for s390x run
# tests/host/queries.sql (every function) and tests/s390x/rounding.sql
# (values whose every operation rounds), and each transcript must equal, byte
# for byte, the x86-64 ones (scalar kernels and the default path).  The host
# links Debian's s390x libsqlite3 runtime (multiarch; see ensure-deps.sh) and
# runs on that architecture's own loader and libc, so qemu needs no -L.
S390X_CC  = s390x-linux-gnu-gcc
S390X_OBJ = $(SRC:%.c=build/s390x/obj/%.o)
HOST_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wdouble-promotion

build/s390x/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(S390X_CC) $(CFLAGS) $(QUANT_CFLAGS) $(EXCESS_FLAG) $(DEPFLAGS) -c $< -o $@

# Named quant.so like dist/quant.so: SQLite derives the entry point's name
# (sqlite3_quant_init) from the file name.
build/s390x/quant.so: $(S390X_OBJ)
	$(S390X_CC) $(CFLAGS) -shared -o $@ $(S390X_OBJ) $(LDLIBS)

build/s390x/kernel_test: build/s390x/obj/tests/kernel_test.o \
                         $(KERNEL_SRC:%.c=build/s390x/obj/%.o)
	$(S390X_CC) -static $(CFLAGS) -o $@ $^ $(LDLIBS)

build/s390x/sqlhost: tests/host/sqlhost.c
	@mkdir -p build/s390x
	$(S390X_CC) $(CFLAGS) $(HOST_CFLAGS) -o $@ tests/host/sqlhost.c -l:libsqlite3.so.0 $(LDLIBS)

build/s390x/native/sqlhost: tests/host/sqlhost.c
	@mkdir -p build/s390x/native
	$(CC) $(CFLAGS) $(HOST_CFLAGS) -o $@ tests/host/sqlhost.c -lsqlite3 $(LDLIBS)

test-s390x:
	@$(DEPS) s390x
	@$(MAKE) --no-print-directory dist/quant.so build/s390x/native/sqlhost \
	    build/s390x/kernel_test build/s390x/quant.so build/s390x/sqlhost
	sh tests/s390x/run.sh build/s390x dist/quant.so build/s390x/native/sqlhost \
	    tests/host/queries.sql tests/s390x/rounding.sql

# ggml's reference library (libggml-base.so of ggml 0.25.1, commit 0ad4a86,
# from the npm package @node-llama-cpp/linux-x64@3.22.1, its tarball checked
# against a pinned sha512): tests/ggml/fetch_ggml.sh does nothing when the
# file is there with the pinned hash.  Never committed (build/).
GGML_LIB = build/ggml/libggml-base.so
ggml-lib:
	@$(DEPS) ggml
	@sh tests/ggml/fetch_ggml.sh $(GGML_LIB)

# llama.cpp's libllama.v0.5.0.so with the ggml libraries it loads, from the
# same pinned package, side by side in build/llama/ (docs/CLI.md#quantize).
LLAMA_LIB = build/llama
llama-lib:
	@$(DEPS) ggml
	@sh tests/ggml/fetch_ggml.sh --llama $(LLAMA_LIB)

# sqlite-quant quantize against llama_model_quantize on small llama models
# of fresh random weights (seed printed): every ftype with a mixture, the
# rest with --pure, the options, the refusals; the files byte for byte.
test-llama-quantize: llama-lib dist/sqlite-quant
	/usr/bin/python3 tests/llama/quantize_check.py --lib $(LLAMA_LIB) --cli dist/sqlite-quant

# The files run: a small llama model of fresh random weights quantized under
# nine mixtures, each loaded by llama.cpp's llama_model_load_from_file and
# fed 32 tokens; finite logits, and the KL divergence from the f16 model's
# next-token distribution growing as the bits shrink (the table printed).
test-llama-run: llama-lib dist/sqlite-quant
	/usr/bin/python3 tests/llama/run_check.py --lib $(LLAMA_LIB) --cli dist/sqlite-quant

# tests/ggml/ggml_ref_test.c: every kernel path's ggml kernels (quantize with
# and without importance, dequantize) against ggml's own functions, loaded
# with dlopen.  Built like build/kernel_test.
build/ggml_ref_test: build/obj/tests/ggml/ggml_ref_test.o $(KERNEL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -ldl

GGML_TEST_FLAGS =

# The model-file readers' own tests, under AddressSanitizer + UBSan: files
# written by numpy, by ggml's own gguf code and by an independent safetensors
# writer (tests/gen_npy.py, tests/gen_gguf.py, tests/gen_safetensors.py), exact
# indexes and error messages, every truncation, mutated bytes and failed
# allocations.  The GGUF test also runs under de_DE.UTF-8 (its metadata
# prints numbers).  Each links the objects of build/asan/quant.so below the
# SQL layer.  Those reach SQLite's allocator through sqlite3_api
# (core/memory.h): the gguf and onnx tests fill that table with allocators
# of their own; the others are compiled with SQLITE_CORE, link SQLite, and
# point it at SQLite's functions (tests/core_test.h).
CORE_TESTS = npy gguf safetensors tflite onnx inflate
CORE_TESTS_SQLITE = npy safetensors tflite inflate
$(CORE_TESTS_SQLITE:%=build/asan/tests/%_core_test.o): TEST_CFLAGS = -DSQLITE_CORE
$(CORE_TESTS:%=build/asan/%_core_test): build/asan/%_core_test: \
    build/asan/tests/%_core_test.o $(ASAN_BELOW_SQL)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(if $(filter $*,$(CORE_TESTS_SQLITE)),-lsqlite3) $(LDLIBS)

test-npy-core: build/asan/npy_core_test
	ASAN_OPTIONS=detect_leaks=1 ./build/asan/npy_core_test tests/data/npy

# The DEFLATE decoder (formats/inflate.c) on hand-made streams and zlib's
# (tests/gen_npz.py).
test-inflate-core: build/asan/inflate_core_test
	ASAN_OPTIONS=detect_leaks=1 ./build/asan/inflate_core_test tests/data/inflate

test-gguf-core: build/asan/gguf_core_test
	@$(DEPS) locale
	ASAN_OPTIONS=detect_leaks=1 ./build/asan/gguf_core_test tests/data/gguf
	LC_ALL=de_DE.UTF-8 ASAN_OPTIONS=detect_leaks=1 ./build/asan/gguf_core_test tests/data/gguf

test-safetensors-core: build/asan/safetensors_core_test
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build/asan/safetensors_core_test

# The TFLite reader on tests/gen_tflite.py's files: unaligned bytes, every
# prefix, seeded mutations and every failed allocation.
test-tflite-core: build/asan/tflite_core_test
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build/asan/tflite_core_test tests/data/tflite

# The ONNX reader's own test (tests/onnx_core_test.c): every byte range of
# every tensor of tests/data/onnx/ through the decoders, every truncation
# and byte mutation, every failed allocation.
test-onnx-core: build/asan/onnx_core_test
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build/asan/onnx_core_test tests/data/onnx

# Every path's ggml kernels against ggml itself, byte for byte, on fresh
# random data (fetches ggml via npm); GGML_TEST_FLAGS=--quick for CI,
# --seed N to rerun.  First: the iq value tables (ext/kernels/ggml_iq_tables.c)
# are what tests/ggml/gen_iq_tables.py reads back from ggml.
test-ggml: ggml-lib
	@$(MAKE) --no-print-directory build/ggml_ref_test
	/usr/bin/python3 tests/ggml/gen_iq_tables.py --check $(GGML_LIB)
	./build/ggml_ref_test --lib $(GGML_LIB) $(GGML_TEST_FLAGS)
	/usr/bin/python3 tools/gen_iq_grids.py --check $(GGML_LIB) ext/kernels/ggml_iq_grids.c

# Registry rows as PyTorch quantized tensors, dequantized bit-identically
# (examples/registry_to_torch.py).
test-torch: dist/quant.so
	@$(DEPS) torch
	/usr/bin/python3 examples/registry_to_torch.py

# The demo's SQL import against the reference Python importer.
test-import: dist/quant.so
	@$(DEPS) import
	sh tests/import_check.sh

# The registry scripts beside other writers and under kill -9, run as a host
# runs them: Debian's python3 and its sqlite3 module with dist/quant.so
# loaded, child processes started together (tests/registry_concurrency.py)
# or killed at fixed statements and progress-handler calls
# (tests/registry_kill.py; it re-imports the demo's models, fetched as for
# test-import).  About 5 and 25 s.
test-registry-concurrency: dist/quant.so
	@$(DEPS) test
	/usr/bin/python3 tests/registry_concurrency.py --ext dist/quant
test-registry-kill: dist/quant.so
	@$(DEPS) import
	sh examples/fetch_models.sh build/models >/dev/null
	/usr/bin/python3 tests/registry_kill.py --ext dist/quant --models build/models
# GGUF files against ggml's own gguf code both ways (fetches ggml like
# test-ggml): what q_gguf_agg / q_gguf_write write loads in ggml with the same
# tensors and metadata, and what ggml's gguf_write_to_file writes reads back
# in SQL and is written again byte for byte.
test-gguf-write: ggml-lib dist/quant.so
	/usr/bin/python3 tests/ggml/gguf_write_check.py --lib $(GGML_LIB) --ext dist/quant.so

# The path writers against crashes and a full disk (tests/file_crash.tcl):
# children killed with SIGKILL and SIGTERM mid-write leave nothing but the
# old target, unchanged; a full tmpfs (mounted when root, else skipped with
# the reason) gives an error and keeps the old file; the disk a write needs
# is the output's size, not twice.  Run twice: on dist/quant.so (O_TMPFILE)
# and on build/named-tmp/quant.so, the same library whose staged files take
# the named-file way (-DSQ_STAGED_NO_TMPFILE), as on a file system without
# O_TMPFILE; the transaction tests run on that build too.
NAMED_TMP_OBJ = $(filter-out build/obj/ext/formats/staged_file.o,$(OBJ)) \
                build/named-tmp/staged_file.o
build/named-tmp/staged_file.o: ext/formats/staged_file.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(QUANT_CFLAGS) $(DEPFLAGS) -DSQ_STAGED_NO_TMPFILE -c $< -o $@
build/named-tmp/quant.$(SO): $(NAMED_TMP_OBJ)
	$(CC) $(CFLAGS) $(SHARED) -o $@ $(NAMED_TMP_OBJ) $(LDLIBS)

test-file-crash: dist/quant.$(SO) build/named-tmp/quant.$(SO)
	tclsh tests/file_crash.tcl dist/quant.$(SO) build/named-tmp/quant.$(SO)

test-tcl: dist/quant.so
	tclsh tests/run.tcl dist/quant.so

# The docs' examples (docs/TESTING.md#the-documentation); also in make test.
.PHONY: test-docs
test-docs: dist/quant.so
	tclsh tests/run.tcl dist/quant.so tests/docs.test

test: deps test-catalogue
	@$(MAKE) --no-print-directory dist/quant.so build/kernel_test dist/sqlite-quant
	tclsh tests/run.tcl -kernels build/kernel_test dist/quant.so
	sh tests/cli/run.sh dist/sqlite-quant

# ---- The catalogue (docs/ARCHITECTURE.md#the-catalogue) --------------------
# ext/catalogue.toml declares every type, dtype, format, method, scheme and
# SQL function once; tools/gen_catalogue.py (Python 3.11's tomllib, nothing
# to install) writes the files and regions made from it, which are
# committed, so a build needs no Python.  test-catalogue regenerates them
# into a temporary directory and fails on any difference.
.PHONY: catalogue test-catalogue
catalogue:
	/usr/bin/python3 tools/gen_catalogue.py
test-catalogue:
	/usr/bin/python3 tools/gen_catalogue.py --check

build/asan/kernel_test: build/asan/tests/kernel_test.o $(ASAN_KERNEL_OBJ)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(ZLIB_LIBS) $(LDLIBS)

# The kernel tests and the whole Tcl suite against AddressSanitizer + UBSan
# builds.  tclsh is not instrumented, so the sanitizer runtime is preloaded.
test-asan: deps
	@$(MAKE) --no-print-directory build/asan/quant.so build/asan/kernel_test \
	    build/asan/sqlite-quant dist/quant.so
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	    tclsh tests/run.tcl -kernels build/asan/kernel_test build/asan/quant.so
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    sh tests/cli/run.sh build/asan/sqlite-quant

# The C SQL host (tests/host/sqlhost.c) runs tests/host/queries.sql through the
# system libsqlite3, as an application would.  test-oom fails each allocation
# of each query in turn; host and extension are built with ASan, UBSan and
# LeakSanitizer, and the host links the sanitizers itself (no LD_PRELOAD).
# test-locale requires the same transcript in the C locale and in de_DE.UTF-8.
# libsqlite3 has no frame pointers: without the slow unwinder a leak's stack
# stops inside SQLite and never names the extension's function (~15 s more).
SQLHOST_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wdouble-promotion
SQLHOST_LIBS   = -lsqlite3 -ldl

build/sqlhost: tests/host/sqlhost.c
	@mkdir -p build
	$(CC) $(CFLAGS) $(SQLHOST_CFLAGS) -o $@ tests/host/sqlhost.c $(SQLHOST_LIBS)

build/asan/sqlhost: tests/host/sqlhost.c
	@mkdir -p build/asan
	$(CC) -O1 -g $(SQLHOST_CFLAGS) $(SAN_FLAGS) -o $@ tests/host/sqlhost.c $(SQLHOST_LIBS)

test-oom:
	@$(DEPS) host
	@$(MAKE) --no-print-directory build/asan/quant.so build/asan/sqlhost
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    ./build/asan/sqlhost --oom build/asan/quant.so tests/host/queries.sql

test-locale:
	@$(DEPS) locale
	@$(MAKE) --no-print-directory dist/quant.so build/sqlhost
	sh tests/host/locale.sh build/sqlhost dist/quant.so tests/host/queries.sql

# The main job: real models into a registry, quantized in SQL, policies
# applied, GGUF and ONNX files out, the ONNX models run in ONNX Runtime on
# real audio (examples/demo.sh).
demo: dist/quant.so
	@$(DEPS) demo
	sh examples/demo.sh

# Kernel throughput per path vs memcpy, ggml's block formats vs memcpy and vs
# ggml itself (fetched by ggml-lib; without it the bench says "not present"),
# SQL-level ratios vs a plain q_f32 copy, and numpy / PyTorch side by side
# (OpenBLAS tuning variables unset for that command only: they slow a current
# numpy).
bench: dist/quant.so
	@$(DEPS) bench
	@$(MAKE) --no-print-directory build/bench_kernels build/bench_ggml
	@$(MAKE) --no-print-directory ggml-lib || echo "bench: ggml's library was not fetched; its columns stay empty"
	./build/bench_kernels
	./build/bench_ggml --lib $(GGML_LIB)
	tclsh bench/bench_sql.tcl dist/quant.so
	tclsh bench/bench_compare.tcl dist/quant.so
	tclsh bench/bench_params.tcl dist/quant.so
	tclsh bench/bench_per_channel.tcl dist/quant.so
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/bench_python.py
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/bench_calibration.py

# The benchmarks link the extension's own kernel objects: what they time is
# what dist/quant.so runs.
build/bench_kernels: build/obj/bench/bench_kernels.o $(KERNEL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(ZLIB_LIBS) $(LDLIBS)

build/bench_ggml: build/obj/bench/bench_ggml.o $(KERNEL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -ldl

# libFuzzer over the text readers (JSON tensors and lists, options): clang with
# libFuzzer, ASan and UBSan, linked against SQLite itself (SQLITE_CORE), on
# the objects of fuzz_sql below.  (The fuzzers' own .c files are compiled as
# they are linked, so they depend on every header.)
FUZZ_PARSERS_OBJ = $(patsubst %,build/fuzz/ext/core/%.o,json options status \
                     c_locale text)
build/fuzz_parsers: tests/fuzz/fuzz_parsers.c $(FUZZ_PARSERS_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_parsers.c $(FUZZ_PARSERS_OBJ) -lsqlite3 -lm

# libFuzzer over the whole SQL surface (tests/fuzz/fuzz_sql.c): every function,
# aggregate, window and table-valued function called through SQL with bound
# arguments, the extension compiled in with SQLITE_CORE.  Its objects are built
# once each (build/fuzz/), so a change to one source rebuilds one object.
FUZZ_CFLAGS = -g -O1 -std=c11 -ffp-contract=off -DSQLITE_CORE -Iinclude -Iext \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ = $(SRC:%.c=build/fuzz/%.o)
build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

build/fuzz_sql: tests/fuzz/fuzz_sql.c tests/fuzz/fuzz_functions.h $(FUZZ_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -Wall -Wextra -Wshadow -Wdouble-promotion -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_sql.c $(FUZZ_OBJ) -lsqlite3 -lm

# libFuzzer over the model files through SQL (tests/fuzz/fuzz_models.c): valid
# files of every format mutated within their structure
# (tests/fuzz/model_mutate.c), read at several length limits, written back
# through the write tables, quantized by q_compare; the objects of fuzz_sql.
FUZZ_MODELS_SRC = tests/fuzz/fuzz_models.c tests/fuzz/model_mutate.c
build/fuzz_models: $(FUZZ_MODELS_SRC) tests/fuzz/model_mutate.h $(FUZZ_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -Wall -Wextra -Wshadow -Wdouble-promotion -fsanitize=fuzzer \
	    -o $@ $(FUZZ_MODELS_SRC) $(FUZZ_OBJ) -lsqlite3 -lm
FUZZ_MODELS_OPTS = -max_len=65536 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256

# libFuzzer over the model-file readers (tests/fuzz/fuzz_files.c): bytes into
# sq_file_read for every format and for detection; the core and kernel
# objects of fuzz_sql, no SQL layer.
FUZZ_FILES_OBJ = $(FORMATS_SRC:%.c=build/fuzz/%.o) $(CORE_SRC:%.c=build/fuzz/%.o) $(KERNEL_SRC:%.c=build/fuzz/%.o)
build/fuzz_files: tests/fuzz/fuzz_files.c $(FUZZ_FILES_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -Wall -Wextra -Wshadow -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_files.c $(FUZZ_FILES_OBJ) -lsqlite3 -lm
FUZZ_FILES_OPTS = -max_len=1048577 -len_control=20 -timeout=20 \
                  -rss_limit_mb=2048 -malloc_limit_mb=256

# libFuzzer over the DEFLATE decoder alone (tests/fuzz/fuzz_inflate.c):
# streams decoded whole and in ranges, which must agree.
# (The CRC's paths and their choice are the kernels': all of them link.)
FUZZ_INFLATE_OBJ = build/fuzz/ext/formats/inflate.o build/fuzz/ext/formats/crc32.o \
                   build/fuzz/ext/core/status.o build/fuzz/ext/core/c_locale.o \
                   $(KERNEL_SRC:%.c=build/fuzz/%.o)
build/fuzz_inflate: tests/fuzz/fuzz_inflate.c $(FUZZ_INFLATE_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -Wall -Wextra -Wshadow -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_inflate.c $(FUZZ_INFLATE_OBJ) -lsqlite3 -lm
FUZZ_INFLATE_OPTS = -max_len=262148 -timeout=20 -rss_limit_mb=2048 \
                    -malloc_limit_mb=256

# libFuzzer over the tool's importance matrix reader (tests/fuzz/fuzz_imatrix.c):
# bytes as an --imatrix file, GGUF (the extension's reader, through SQL) or
# legacy (cli/imatrix.c's own parser); the objects of fuzz_sql.
build/fuzz_imatrix: tests/fuzz/fuzz_imatrix.c cli/imatrix.c cli/cli.c cli/cli.h cli/imatrix.h $(FUZZ_OBJ) $(HDR)
	clang $(FUZZ_CFLAGS) -Wall -Wextra -Wshadow -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_imatrix.c cli/imatrix.c cli/cli.c $(FUZZ_OBJ) -lsqlite3 -lm
FUZZ_IMATRIX_OPTS = -max_len=65536 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256

# New inputs go to build/fuzz-corpus-sql; the committed seeds are read too.
# One allocation over 256 MiB is a finding: no value may exceed 1 MiB here.
FUZZ_SQL_OPTS = -dict=tests/fuzz/sql.dict -max_len=8192 -timeout=20 \
                -rss_limit_mb=2048 -malloc_limit_mb=256
fuzz:
	@$(DEPS) fuzz
	@$(MAKE) --no-print-directory build/fuzz_sql build/fuzz_parsers build/fuzz_files build/fuzz_inflate build/fuzz_models build/fuzz_imatrix
	@mkdir -p build/fuzz-corpus build/fuzz-corpus-sql build/fuzz-corpus-files build/fuzz-corpus-inflate build/fuzz-corpus-imatrix
	./build/fuzz_sql $(FUZZ_SQL_OPTS) -max_total_time=60 build/fuzz-corpus-sql tests/fuzz/corpus/sql
	./build/fuzz_parsers -max_total_time=20 -max_len=4096 build/fuzz-corpus
	./build/fuzz_files $(FUZZ_FILES_OPTS) -max_total_time=60 build/fuzz-corpus-files tests/fuzz/corpus/files
	./build/fuzz_inflate $(FUZZ_INFLATE_OPTS) -max_total_time=30 build/fuzz-corpus-inflate tests/fuzz/corpus/inflate
	@mkdir -p build/fuzz-corpus-models
	./build/fuzz_models $(FUZZ_MODELS_OPTS) -max_total_time=60 build/fuzz-corpus-models tests/fuzz/corpus/models
	./build/fuzz_imatrix $(FUZZ_IMATRIX_OPTS) -max_total_time=30 build/fuzz-corpus-imatrix tests/fuzz/corpus/imatrix

# Deterministic (-seed=1, bounded -runs) for CI; ends "fuzz: N passed, N failed".
test-fuzz:
	@$(DEPS) fuzz
	@$(MAKE) --no-print-directory build/fuzz_sql build/fuzz_parsers build/fuzz_files build/fuzz_inflate build/fuzz_models build/fuzz_imatrix
	sh tests/fuzz/ci.sh

clean:
	rm -rf build dist

# Tensors bigger than a BLOB, by hand (not in CI): a 3.2 GB safetensors file
# streamed to disk, read back chunk by chunk and checked against the
# generator's digests (tests/large/run.sh; ~10 GB in build/large, removed).
.PHONY: test-large
test-large: dist/quant.so
	sh tests/large/run.sh dist/quant.so

# The Python package (bindings/python/).  `make wheel` builds
# dist/sqlite_quant-$(VERSION)-py3-none-manylinux_2_Y_<arch>.whl with Debian's
# setuptools and wheel: setup.py takes the version from include/sqlite_quant.h
# and the platform tag from the glibc symbol versions the extension
# references, and bundles dist/quant.so less its debug sections
# (build/python/quant.so).  A checkout gives the same wheel bytes every time:
# zip times are the last commit's (SOURCE_DATE_EPOCH), file modes are fixed.
# (Another checkout path gives the library another build ID, computed before
# the debug sections, which name the source paths, were stripped.)
# `make test-python` builds it twice (the bytes must match), installs it with
# pip into a fresh virtual environment of /usr/bin/python3 (Debian's numpy
# visible, nothing from PyPI), runs tests/python/ there, Debian's sqlite-utils
# included, and removes the environment.
PYTHON = /usr/bin/python3
WHEEL_EPOCH = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),315532800)
# $(call build_wheel,DIR): the wheel into DIR, its setuptools work in DIR/setup.
# The wheel records file modes: umask 022 keeps the caller's out of it.
build_wheel = rm -rf $(1)/setup $(1)/sqlite_quant-*.whl && mkdir -p $(1)/setup && \
  umask 022 && cd bindings/python && SQLITE_QUANT_LIB=$(CURDIR)/build/python/quant.so \
  SQLITE_QUANT_CLI=$(CURDIR)/build/python/sqlite-quant \
  SOURCE_DATE_EPOCH=$(WHEEL_EPOCH) \
  PYTHONWARNINGS="ignore:setup.py install is deprecated" \
  $(PYTHON) setup.py -q egg_info --egg-base $(CURDIR)/$(1)/setup \
    build --build-base $(CURDIR)/$(1)/setup/build \
    bdist_wheel --bdist-dir $(CURDIR)/$(1)/setup/bdist --dist-dir $(CURDIR)/$(1)

.PHONY: wheel test-python
# The wheel's command-line tool (the sqlite-quant console script) is the
# tool with SQLite linked in statically (Debian's libsqlite3.a), so that
# like the extension it needs only libc and libm.
build/python/sqlite-quant: $(CLI_OBJ)
	@mkdir -p build/python
	$(CC) $(CFLAGS) -o $@.tmp $(CLI_OBJ) $$($(CC) -print-file-name=libsqlite3.a) $(LDLIBS)
	strip --strip-debug -o $@ $@.tmp && rm -f $@.tmp

wheel:
	@$(DEPS) python
	@$(MAKE) --no-print-directory dist/quant.so build/python/sqlite-quant
	@mkdir -p build/python
	strip --strip-debug -o build/python/quant.so dist/quant.so
	@$(call build_wheel,dist)
	@ls dist/sqlite_quant-$(VERSION)-py3-none-*.whl

test-python: wheel
	@$(call build_wheel,build/python/again)
	sh tests/python/venv_test.sh dist/sqlite_quant-$(VERSION)-py3-none-*.whl \
	    build/python/again/sqlite_quant-$(VERSION)-py3-none-*.whl dist/quant.so

# ---------------------------------------------------------------------------
# The npm package (bindings/node/): `make npm-pack` packs it, with this
# host's dist/quant.so inside and the version stamped from
# include/sqlite_quant.h, to dist/sqlite-quant-VERSION.tgz (its debugging
# information stripped: 0.6 MB instead of 5 MB); `make test-node`
# installs that tarball into a throwaway project and tests it there
# (tests/node/run.sh).  better-sqlite3 comes from the machine-wide cache of
# tests/node/better_sqlite3.sh (built once; SQLITE_QUANT_CACHE moves it).
# ---------------------------------------------------------------------------
.PHONY: npm-pack test-node
NPM_STAGE   = build/npm/sqlite-quant
NPM_TARBALL = dist/sqlite-quant-$(VERSION).tgz

npm-pack: $(NPM_TARBALL)

$(NPM_TARBALL): dist/quant.so include/sqlite_quant.h LICENSE $(wildcard bindings/node/*)
	@$(DEPS) node
	@mkdir -p build/npm
	strip --strip-debug -o build/npm/quant.so dist/quant.so
	node bindings/node/stage.js $(VERSION) build/npm/quant.so $(NPM_STAGE)
	cd $(NPM_STAGE) && npm pack --ignore-scripts --silent --pack-destination $(CURDIR)/dist >/dev/null
	@echo "npm-pack: $@"

test-node: $(NPM_TARBALL)
	@$(DEPS) node
	sh tests/node/run.sh $(NPM_TARBALL)

# SQLite versions: the Tcl suite (every kernel path) and the C SQL catalog on
# the oldest supported SQLite (3.31.1) and the newest on npm (3.54.1), besides
# Debian's; the catalog's transcripts must equal Debian's byte for byte.  The
# extension's sources must compile against 3.31.1's headers but not 3.30.1's,
# and the extension must refuse 3.30.1 with a clear error
# (tests/sqlite-versions/run.sh).
# The sources come from npm packages, pinned and checked (fetch.sh), cached
# in build/sqlite-versions.  Each version's sqlite3.c is compiled once, with
# JSON1 (built in only from 3.38) and the math functions (from 3.35) enabled
# as in Debian's build; the Tcl binding, the C host and the shell link it.
.PHONY: test-sqlite-versions
SQLV_DIR      = build/sqlite-versions
SQLV_CFLAGS   = -O2 -fPIC -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_JSON1 \
                -DSQLITE_ENABLE_MATH_FUNCTIONS
SQLV_TCL_INC  = -I/usr/include/tcl8.6
SQLV_TCL_STUB = -ltclstub8.6
SQLV_LIBS     = -lpthread -ldl -lm

# SQLite's own code, as released: its warnings under gcc 12 are not ours (-w).
# Kept (.PRECIOUS): three programs link it, and it takes ~15 s to build.
.PRECIOUS: $(SQLV_DIR)/%/sqlite3.o
$(SQLV_DIR)/%/sqlite3.o: $(SQLV_DIR)/%/sqlite3.c
	$(CC) $(SQLV_CFLAGS) -w -c $< -o $@

# The Tcl binding against this version's header and library (`load LIB
# Sqlite3`), not Debian's.
$(SQLV_DIR)/%/libtclsqlite3.so: $(SQLV_DIR)/%/tclsqlite3.c $(SQLV_DIR)/%/sqlite3.o
	$(CC) -O2 -fPIC -shared -DUSE_SYSTEM_SQLITE -DUSE_TCL_STUBS -I$(dir $@) \
	    $(SQLV_TCL_INC) -o $@ $^ $(SQLV_TCL_STUB) $(SQLV_LIBS)

$(SQLV_DIR)/%/sqlhost: tests/host/sqlhost.c $(SQLV_DIR)/%/sqlite3.o
	$(CC) $(CFLAGS) $(SQLHOST_CFLAGS) -I$(dir $@) -o $@ $^ $(SQLV_LIBS)

$(SQLV_DIR)/%/sqlite3: $(SQLV_DIR)/%/shell.c $(SQLV_DIR)/%/sqlite3.o
	$(CC) -O2 -I$(dir $@) -o $@ $^ $(SQLV_LIBS)

test-sqlite-versions:
	@$(DEPS) sqlite-versions
	@sh tests/sqlite-versions/fetch.sh $(SQLV_DIR) || \
	    { echo "sqlite-versions: 0 passed, 1 failed (no SQLite sources)"; exit 1; }
	@$(MAKE) --no-print-directory -j2 dist/quant.so build/sqlhost \
	    $(SQLV_DIR)/3.31.1/libtclsqlite3.so $(SQLV_DIR)/3.31.1/sqlhost \
	    $(SQLV_DIR)/3.54.1/libtclsqlite3.so $(SQLV_DIR)/3.54.1/sqlhost \
	    $(SQLV_DIR)/3.30.1/sqlite3
	sh tests/sqlite-versions/run.sh $(SQLV_DIR) dist/quant.so build/sqlhost \
	    3.30.1 3.31.1 3.54.1

# ---- Install, pkg-config and the single-file amalgamation -------------------
#   make install / uninstall  PREFIX (/usr/local), DESTDIR; LIBDIR, INCLUDEDIR,
#                             PKGCONFIGDIR and EXTDIR can be set one by one
#   make amalgamation         dist/sqlite-quant.c and dist/sqlite_quant.h
#   make test-install         install into a DESTDIR under build/, use what was
#                             installed (sqlite3 shell, pkg-config, a C
#                             program), uninstall, check nothing is left
#   make test-amalgamation    the amalgamation built as users would (gcc,
#                             clang, gcc -std=gnu11 -O3 -march=native) against
#                             the suite and the catalog, and linked into a
#                             program with SQLITE_CORE; built again with
#                             SQLITE_QUANT_OMIT_FS, which must import no
#                             file-system call and register only what
#                             sqlite3_quant_nofs_init does
# Installed: the extension as $(EXTDIR)/quant.$(SO), in a directory of its own
# (a bare quant.so in lib/ says nothing of whose it is, and another base name
# would lose SQLite's default entry point); the header; the same code as a
# static library compiled with SQLITE_CORE (libsqlite_quant.a, registered
# with sqlite3_auto_extension); and sqlite-quant.pc, whose variable
# `extension` is the loadable file's path; and the command-line tool in
# BINDIR.
PREFIX       = /usr/local
BINDIR       = $(PREFIX)/bin
LIBDIR       = $(PREFIX)/lib
INCLUDEDIR   = $(PREFIX)/include
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
EXTDIR       = $(LIBDIR)/sqlite-quant
INSTALL      = install

.PHONY: install uninstall amalgamation test-install test-amalgamation

# tools/amalgamate.py writes both files in one run (the header's rule runs
# it again only when the header alone was deleted).
amalgamation: dist/sqlite-quant.c dist/sqlite_quant.h
dist/sqlite-quant.c: tools/amalgamate.py $(SRC) $(HDR)
	/usr/bin/python3 tools/amalgamate.py dist
dist/sqlite_quant.h: dist/sqlite-quant.c
	@test -f $@ || /usr/bin/python3 tools/amalgamate.py dist

# The static library: the amalgamation as one object, with the project's
# flags (the same bytes as the loadable file) and SQLITE_CORE.
build/static/sqlite-quant.o: dist/sqlite-quant.c
	@mkdir -p build/static
	$(CC) $(CFLAGS) $(QUANT_CFLAGS) -DSQLITE_CORE -c dist/sqlite-quant.c -o $@
dist/libsqlite_quant.a: build/static/sqlite-quant.o
	rm -f $@
	$(AR) rcs $@ build/static/sqlite-quant.o

install: dist/quant.$(SO) dist/libsqlite_quant.a dist/sqlite-quant
	$(INSTALL) -d $(DESTDIR)$(EXTDIR) $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 dist/quant.$(SO) $(DESTDIR)$(EXTDIR)/quant.$(SO)
	$(INSTALL) -m 755 dist/sqlite-quant $(DESTDIR)$(BINDIR)/sqlite-quant
	$(INSTALL) -m 644 dist/libsqlite_quant.a $(DESTDIR)$(LIBDIR)/libsqlite_quant.a
	$(INSTALL) -m 644 include/sqlite_quant.h $(DESTDIR)$(INCLUDEDIR)/sqlite_quant.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@EXTDIR@|$(EXTDIR)|g' \
	    -e 's|@SO@|$(SO)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    sqlite-quant.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/sqlite-quant.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/sqlite-quant.pc

# Exactly what install wrote, and the extension's directory once it is empty.
uninstall:
	rm -f $(DESTDIR)$(EXTDIR)/quant.$(SO) $(DESTDIR)$(LIBDIR)/libsqlite_quant.a \
	    $(DESTDIR)$(BINDIR)/sqlite-quant \
	    $(DESTDIR)$(INCLUDEDIR)/sqlite_quant.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/sqlite-quant.pc
	if [ -d $(DESTDIR)$(EXTDIR) ]; then rmdir $(DESTDIR)$(EXTDIR); fi

test-install:
	@$(DEPS) install
	@$(MAKE) --no-print-directory dist/quant.$(SO) dist/libsqlite_quant.a dist/sqlite-quant
	sh tests/install/run.sh "$(MAKE)" $(VERSION) $(SO)

# The loadable file from the amalgamation with a user's ordinary flags, by
# each compiler, and with gnu11 (where gcc would fuse a*b+c) at -O3 for this
# CPU: the amalgamation itself must pin what exactness needs.
AMALG_SO = build/amalg/gcc/quant.so build/amalg/clang/quant.so \
           build/amalg/native/quant.so
build/amalg/gcc/quant.so: dist/sqlite-quant.c
	@mkdir -p $(dir $@)
	gcc -O2 -fPIC -shared dist/sqlite-quant.c -o $@ -lm
build/amalg/clang/quant.so: dist/sqlite-quant.c
	@mkdir -p $(dir $@)
	clang -O2 -fPIC -shared dist/sqlite-quant.c -o $@ -lm
build/amalg/native/quant.so: dist/sqlite-quant.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O3 -march=native -fPIC -shared dist/sqlite-quant.c -o $@ -lm
# Without the file system (docs/ARCHITECTURE.md#registration): the path
# code compiled out; -Werror, so the guards leave nothing unused behind.
AMALG_OMIT_FS = build/amalg/omit-fs/quant.so
$(AMALG_OMIT_FS): dist/sqlite-quant.c
	@mkdir -p $(dir $@)
	gcc -O2 -fPIC -shared -Wall -Wextra -Werror -DSQLITE_QUANT_OMIT_FS \
	    dist/sqlite-quant.c -o $@ -lm

# Big-endian: the amalgamation built by the s390x cross compiler with its
# default flags, its catalog transcript under qemu-user compared with x86-64's.
# Only where the s390x tools are installed (make test-s390x installs them);
# otherwise test-amalgamation counts the check as skipped.
S390X_READY = $(and $(shell command -v $(S390X_CC) 2>/dev/null),\
                    $(shell command -v qemu-s390x 2>/dev/null),\
                    $(wildcard /usr/lib/s390x-linux-gnu/libsqlite3.so.0))
S390X_AMALG = $(if $(S390X_READY),build/s390x/sqlhost build/amalg/s390x/quant.so)
build/amalg/s390x/quant.so: dist/sqlite-quant.c
	@mkdir -p $(dir $@)
	$(S390X_CC) -O2 -fPIC -shared dist/sqlite-quant.c -o $@ -lm

build/static_test: tests/static/static_test.c dist/sqlite-quant.c dist/sqlite_quant.h
	@mkdir -p build
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -DSQLITE_CORE -Idist -o $@ \
	    tests/static/static_test.c dist/sqlite-quant.c -lsqlite3 -lm

test-amalgamation:
	@$(DEPS) amalgamation
	@$(MAKE) --no-print-directory dist/quant.$(SO) build/sqlhost build/static_test \
	    $(AMALG_SO) $(AMALG_OMIT_FS) $(S390X_AMALG)
	sh tests/amalgamation/run.sh $(if $(S390X_READY),-s390x $(S390X_AMALG)) \
	    -omit-fs $(AMALG_OMIT_FS) \
	    dist/quant.$(SO) build/sqlhost build/static_test $(AMALG_SO)

# ONNX export and evaluation: Silero VAD written per policy with weight-only
# DequantizeLinear (examples/export_onnx.py), run against the float model in
# ONNX Runtime (examples/evaluate_vad.mjs; onnxruntime-node 1.30.0 pinned and
# fetched by examples/fetch_onnxruntime.sh into build/onnxruntime), results
# filed in the registry (examples/record_evaluations.sql).
# test-onnx-export checks all of it end to end on fixture policies and
# synthetic audio (tests/onnx_export/).
.PHONY: onnxruntime test-onnx-export
onnxruntime:
	@$(DEPS) onnx-export
	@sh examples/fetch_onnxruntime.sh build/onnxruntime

# bitsandbytes' NF4 and FP4: the derived tables and vectors are current
# (tests/gen_bnb4.py --check), and fresh random weights quantized by the
# extension decode in ONNX Runtime's MatMulBnb4 (com.microsoft) to
# q_bnb4_dequantize's floats bit for bit (tests/bnb4/ort_check.py; a new
# seed each run, printed: --seed N reruns it).
.PHONY: test-bnb4
test-bnb4: dist/quant.$(SO)
	@$(DEPS) onnx-export
	@sh examples/fetch_onnxruntime.sh build/onnxruntime
	/usr/bin/python3 tests/gen_bnb4.py --check
	/usr/bin/python3 tests/bnb4/ort_check.py dist/quant.$(SO)
	/usr/bin/python3 tests/bnb4/ref_check.py dist/quant.$(SO)

test-onnx-export: dist/quant.$(SO)
	@$(DEPS) onnx-export
	@sh tests/onnx_export/run.sh dist/quant

# float8 codes against ONNX Runtime 1.30 (tests/gen_onnx_codes.mjs): the
# committed vectors (tests/data/onnx_codes.tcl, replayed by make test) must
# be what the generator writes now, and fresh random cases (a new seed each
# run, printed; ONNX_CODES_SEED=N reruns one) must replay through SQL on
# every kernel path.
ONNX_CODES_SEED ?= $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
.PHONY: test-onnx-codes
test-onnx-codes: dist/quant.$(SO)
	@$(DEPS) node
	@sh examples/fetch_onnxruntime.sh build/onnxruntime
	@mkdir -p build
	node tests/gen_onnx_codes.mjs --out build/onnx_codes_committed.tcl
	@cmp -s build/onnx_codes_committed.tcl tests/data/onnx_codes.tcl || { \
	  echo "onnx-codes: tests/data/onnx_codes.tcl is not what tests/gen_onnx_codes.mjs writes"; \
	  echo "onnx-codes: 0 passed, 1 failed"; exit 1; }
	@echo "onnx-codes: seed $(ONNX_CODES_SEED)"
	node tests/gen_onnx_codes.mjs --seed $(ONNX_CODES_SEED) --out build/onnx_codes_random.tcl
	SQ_ONNX_CODES=build/onnx_codes_random.tcl tclsh tests/run.tcl dist/quant.$(SO) tests/onnx_codes.test

# ---- The registry's GGUF export (examples/export_gguf.sh) -------------------
#   make test-gguf-export  the demo's models under three policies
#                          (tests/gguf_export/policies.sql) exported as GGUF,
#                          the same bytes again and on the scalar kernel path,
#                          each file loaded by ggml's own reader and compared
#                          with the registry (examples/check_gguf.py); fetches
#                          the models and ggml like make demo and test-ggml
.PHONY: test-gguf-export
test-gguf-export: dist/quant.so
	@$(DEPS) gguf-export
	@sh tests/ggml/fetch_ggml.sh $(GGML_LIB) || { echo \
	    "test-gguf-export: 0 passed, 1 failed (ggml's library could not be fetched)"; exit 1; }
	sh tests/gguf_export/run.sh dist/quant.so $(GGML_LIB)

# ---- The demo's test audio and the picture's policy panel -------------------
#   make demo-audio   build/demo/audio/*.f32 and manifest.json: espeak-ng
#                     speech in several voices over silence, white noise and
#                     hum, at 16 and 8 kHz (examples/make_audio.py, ~1 s)
#   make test-audio   the same made twice and compared byte for byte and with
#                     pinned hashes, the manifest against the files, the
#                     resampler and the noise (tests/audio_check.py, ~3 s)
#   make test-plot    examples/plot_sqnr.py's panel D (output error against
#                     bits per weight, per policy) on fixture evaluations, and
#                     without any (tests/plot_check.py, ~1 s)
.PHONY: demo-audio test-audio test-plot
demo-audio:
	@$(DEPS) demo
	/usr/bin/python3 examples/make_audio.py --out build/demo/audio

test-audio:
	@$(DEPS) demo
	/usr/bin/python3 tests/audio_check.py --work build/test-audio

test-plot: dist/quant.so
	@$(DEPS) demo
	/usr/bin/python3 tests/plot_check.py --work build/test-plot --ext dist/quant

# ---- The registry on a replicated SQLite cluster (dqlite) -------------------
#   make test-cluster  a 3-node dqlite cluster, each node in a network
#                      namespace of its own on 10.77.0.0/24 (root; nothing
#                      outside the namespaces), go-dqlite's dqlite-demo nodes on
#                      forced kernel paths, the extension registered by an
#                      LD_PRELOAD shim.  The registry built through it while a
#                      client writes all along under its own ids: leaders killed
#                      (mid-batch, mid-write), a follower killed, the leader and
#                      then a follower cut off; then each node's own data
#                      directory read alone: every acknowledged write once, the
#                      unknown ones at most once, every table byte-identical to
#                      a local file (tests/cluster/cluster_test.py, ~1 min).
#                      CLUSTER_SEED=N repeats a run's choices.  State in
#                      build/cluster, removed at the end; the whole run is
#                      bounded by timeout.  Without the demo's models (offline)
#                      the test makes its own weights.
CLUSTER_SHIM = build/obj/tests/cluster/autoload.so
.PHONY: test-cluster
$(CLUSTER_SHIM): tests/cluster/autoload.c
	@$(DEPS) cluster
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -fPIC -shared -o $@ $< -lsqlite3 -ldl

test-cluster: dist/quant.so $(CLUSTER_SHIM)
	@$(DEPS) cluster
	@sh examples/fetch_models.sh build/models || \
	    echo "test-cluster: the demo's models could not be fetched; generated weights instead"
	timeout -k 10 600 $(PYTHON) tests/cluster/cluster_test.py dist/quant.so \
	    $(CLUSTER_SHIM) build/cluster build/models

# The headers each object was compiled from (DEPFLAGS above).
-include $(shell find build -name '*.d' 2>/dev/null)
