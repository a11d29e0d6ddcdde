# cutec — `make` builds the library and build/cutec; `make test` builds and runs every test.
# SAN=1 builds everything under ASan+UBSan into build-san/.
# TSAN=1 tsan-test builds the thread tests (and only the layers they use) under
# ThreadSanitizer into build-tsan/ and runs them.
CC      ?= cc
SAN     ?= 0
TSAN    ?= 0
ifeq ($(SAN),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT      = -O1 -g
else ifeq ($(TSAN),1)
BUILD   ?= build-tsan
SANFLAGS = -fsanitize=thread
OPT      = -O1 -g
else
BUILD   ?= build
SANFLAGS =
OPT      = -O2 -g
endif
CFLAGS  ?= $(OPT)
# -fPIC and -fvisibility=hidden: the same objects make the static archive and the shared
# library, which exports only what the public headers declare (cutec/api.h)
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -MMD -MP $(SANFLAGS)
CFLAGS  += -fPIC -fvisibility=hidden
LDFLAGS += $(SANFLAGS)
LDLIBS  += -lm -ldl -lpthread

# every layer but the CLI goes into the library; tests (*_test.c) are programs of their own
LIB_DIRS := $(filter-out src/cli,$(wildcard src/*))
LIB_SRC  := $(filter-out %_test.c,$(wildcard $(addsuffix /*.c,$(LIB_DIRS)) $(addsuffix /*/*.c,$(LIB_DIRS))))
CLI_SRC  := $(filter-out %_test.c,$(wildcard src/cli/*.c))
TEST_SRC := $(wildcard src/*/*_test.c src/*/*/*_test.c)
TEST_BIN := $(patsubst src/%.c,$(BUILD)/tests/%,$(TEST_SRC))

LIB_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC))
CLI_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))
# everything of the CLI but main(), so CLI tests can link it
CLI_LIB_OBJ := $(filter-out %/main.o,$(CLI_OBJ))

# the shared library's version, from cutec/api.h: libcutec.so.MAJOR is its soname
api_version = $(shell sed -n 's/^\#define CUTEC_VERSION_$(1) //p' include/cutec/api.h)
SO_MAJOR := $(call api_version,MAJOR)
SO_VERSION := $(SO_MAJOR).$(call api_version,MINOR).$(call api_version,PATCH)
SO_NAME := libcutec.so.$(SO_MAJOR)

all: $(BUILD)/libcutec.a $(BUILD)/libcutec.so $(BUILD)/cutec

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS) -Isrc/layout -Isrc -Itests -I$(BUILD)/gen -c $< -o $@

# the exported launcher's runtime (cute_export writes it): real C in src/jit/*.inc, as
# strings for export.c
$(BUILD)/gen/export_launcher_text.h: src/jit/export_types.inc src/jit/export_launcher.inc
	@mkdir -p $(dir $@)
	@for f in $^; do \
	    name=$$(case $$f in *types*) echo EXPORT_TYPES_TEXT;; *) echo EXPORT_LAUNCHER_TEXT;; esac); \
	    echo "static const char $$name[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $$f; \
	    echo ';'; \
	done > $@
$(BUILD)/obj/src/jit/export.o: $(BUILD)/gen/export_launcher_text.h

$(BUILD)/libcutec.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libcutec.so.$(SO_VERSION): $(LIB_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SO_NAME) -o $@ $^ $(LDLIBS)

# the names a program links (-lcutec) and the loader looks for (the soname)
$(BUILD)/libcutec.so: $(BUILD)/libcutec.so.$(SO_VERSION)
	ln -sf libcutec.so.$(SO_VERSION) $(BUILD)/$(SO_NAME)
	ln -sf libcutec.so.$(SO_VERSION) $@

$(BUILD)/libcutec_cli.a: $(CLI_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/cutec: $(BUILD)/obj/src/cli/main.o $(BUILD)/libcutec_cli.a $(BUILD)/libcutec.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/src/%.o $(BUILD)/libcutec_cli.a $(BUILD)/libcutec.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# each fuzz target fuzz/fuzz_T.c replayed over its seed corpus fuzz/corpus/T/: one more
# test program each, $(BUILD)/tests/fuzz/replay_T (scripts/run-tests.sh runs them)
FUZZ_TARGETS := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BIN := $(patsubst %,$(BUILD)/tests/fuzz/replay_%,$(FUZZ_TARGETS))
$(BUILD)/obj/fuzz/replay_%.o: fuzz/replay.c
	@mkdir -p $(dir $@)
	@echo "  CC $< ($*)"
	@$(CC) $(CFLAGS) -DFUZZ_TARGET='"$*"' -c $< -o $@
$(BUILD)/tests/fuzz/replay_%: $(BUILD)/obj/fuzz/replay_%.o $(BUILD)/obj/fuzz/fuzz_%.o $(BUILD)/libcutec_cli.a $(BUILD)/libcutec.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# bench/call_overhead.c (python/bench_overhead.py compiles it into a .so of its own) built
# with the tests, so that it keeps compiling
tests: $(TEST_BIN) $(FUZZ_BIN) $(BUILD)/cutec $(BUILD)/obj/bench/call_overhead.o
	@rm -f $(BUILD)/tests/fuzz/fuzz_replay # the one replay before each target had its own

# the thread tests under ThreadSanitizer: the layers a compiled function runs on, no more
# (and the tuner's, whose workers compile in parallel)
TSAN_DIRS := src/env src/layout src/ir src/trace src/tensor src/jit src/interp src/backend src/runtime src/tune
TSAN_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out %_test.c,$(wildcard $(addsuffix /*.c,$(TSAN_DIRS)))))
TSAN_TESTS := $(BUILD)/tsan/thread_test $(BUILD)/tsan/tune_parallel_test
$(BUILD)/tsan/thread_test: $(BUILD)/obj/src/jit/thread_test.o $(TSAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tsan/tune_parallel_test: $(BUILD)/obj/src/tune/parallel_test.o $(TSAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# runs each, then prints their summed "N passed, N failed, N skipped" (CI's stage reads it)
tsan-test: $(TSAN_TESTS)
	@p=0; f=0; s=0; for t in $(TSAN_TESTS); do \
	    TSAN_OPTIONS="halt_on_error=1 $${TSAN_OPTIONS:-}" $$t > $$t.out; rc=$$?; cat $$t.out; \
	    set -- $$(tail -n 1 $$t.out | sed 's/^[^:]*: //; s/,//g'); \
	    case "$$1$$3$$5" in *[!0-9]*|"") set -- 0 x 1 x 0;; esac; \
	    [ $$rc -ne 0 ] && [ $$3 -eq 0 ] && set -- $$1 x 1 x $$5; \
	    p=$$((p + $$1)); f=$$((f + $$3)); s=$$((s + $$5)); \
	done; echo "$$p passed, $$f failed, $$s skipped"; [ $$f -eq 0 ]

# Runs every test program and the oracle conformance check; the last line is the total.
test: tests
	@sh scripts/run-tests.sh $(BUILD)

tour: all
	@sh scripts/tour.sh $(BUILD)

# --- make install PREFIX=... [DESTDIR=...], make uninstall (docs/install.md) ---------------
PREFIX     ?= /usr/local
bindir     ?= $(PREFIX)/bin
libdir     ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
pkgconfigdir ?= $(libdir)/pkgconfig
HEADERS    := $(notdir $(wildcard include/cutec/*.h include/cutec/*.def))
SO_LINKS   := libcutec.so $(SO_NAME)
# what install puts where (uninstall removes exactly these, then the folders it made if empty)
INSTALLED  := $(bindir)/cutec $(libdir)/libcutec.a $(libdir)/libcutec.so.$(SO_VERSION) \
              $(addprefix $(libdir)/,$(SO_LINKS)) $(pkgconfigdir)/cutec.pc \
              $(addprefix $(includedir)/cutec/,$(HEADERS))

$(BUILD)/cutec.pc: cutec.pc.in include/cutec/api.h FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(libdir)|' -e 's|@INCLUDEDIR@|$(includedir)|' \
	    -e 's|@VERSION@|$(SO_VERSION)|' $< > $@

install: all $(BUILD)/cutec.pc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(pkgconfigdir) \
	    $(DESTDIR)$(includedir)/cutec
	install -m 755 $(BUILD)/cutec $(DESTDIR)$(bindir)/cutec
	install -m 644 $(BUILD)/libcutec.a $(DESTDIR)$(libdir)/libcutec.a
	install -m 755 $(BUILD)/libcutec.so.$(SO_VERSION) $(DESTDIR)$(libdir)/
	for l in $(SO_LINKS); do ln -sf libcutec.so.$(SO_VERSION) $(DESTDIR)$(libdir)/$$l; done
	install -m 644 $(BUILD)/cutec.pc $(DESTDIR)$(pkgconfigdir)/cutec.pc
	install -m 644 $(addprefix include/cutec/,$(HEADERS)) $(DESTDIR)$(includedir)/cutec/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(includedir)/cutec $(DESTDIR)$(pkgconfigdir) 2>/dev/null
	-rmdir $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) 2>/dev/null

# install into a fresh prefix, build and run examples/ against it, uninstall (a CI stage)
install-check: all
	@sh scripts/install-check.sh $(BUILD)

clean:
	rm -rf build build-san build-tsan build-cache

FORCE:
.PHONY: all tests test tsan-test tour clean install uninstall install-check FORCE
# keep the objects of the test programs (make would delete them as intermediates)
.SECONDARY:
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
