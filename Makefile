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
CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude -MMD -MP $(SANFLAGS)
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

all: $(BUILD)/libcutec.a $(BUILD)/cutec

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS) -Isrc/layout -Isrc -Itests -c $< -o $@

$(BUILD)/libcutec.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

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

tests: $(TEST_BIN) $(FUZZ_BIN) $(BUILD)/cutec
	@rm -f $(BUILD)/tests/fuzz/fuzz_replay # the one replay before each target had its own

# the thread tests under ThreadSanitizer: the layers a compiled function runs on, no more
TSAN_DIRS := src/layout src/ir src/trace src/tensor src/jit src/interp src/backend src/runtime
TSAN_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out %_test.c,$(wildcard $(addsuffix /*.c,$(TSAN_DIRS)))))
TSAN_TEST := $(BUILD)/tsan/thread_test
$(TSAN_TEST): $(BUILD)/obj/src/jit/thread_test.o $(TSAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# prints the test's "N passed, N failed, N skipped" (CI's stage reads it)
tsan-test: $(TSAN_TEST)
	@TSAN_OPTIONS="halt_on_error=1 $${TSAN_OPTIONS:-}" $(TSAN_TEST) > $(BUILD)/tsan/out; rc=$$?; \
	cat $(BUILD)/tsan/out; tail -n 1 $(BUILD)/tsan/out | sed 's/^[^:]*: //'; \
	[ $$rc -eq 0 ] || { echo "1 passed, 1 failed, 0 skipped (exit $$rc)"; exit 1; }

# Runs every test program and the oracle conformance check; the last line is the total.
test: tests
	@sh scripts/run-tests.sh $(BUILD)

tour: all
	@sh scripts/tour.sh $(BUILD)

clean:
	rm -rf build build-san build-tsan

.PHONY: all tests test tsan-test tour clean
# keep the objects of the test programs (make would delete them as intermediates)
.SECONDARY:
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
