#!/bin/sh
# Builds the libFuzzer target fuzz/fuzz_layout.c with clang (ASan+UBSan) and runs it:
#   scripts/fuzz.sh [SECONDS]         default 60; from the repository root
# New inputs go to a temporary directory (printed at the end); crashes to fuzz/crashes/.
# For developers: CI replays fuzz/corpus through the Makefile's fuzz_replay instead.
set -eu
secs=${1:-60}
out=build-fuzz
mkdir -p "$out" fuzz/crashes

# libFuzzer's runtime lives in the clang runtime package; install it only when missing
probe() {
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
        clang -x c -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null
}
if ! probe; then
    echo "fuzz.sh: clang cannot link -fsanitize=fuzzer; installing libclang-rt-14-dev"
    apt-get update -qq && apt-get install -y -qq libclang-rt-14-dev
    probe
fi

lib=
for f in src/layout/*.c; do
    case $f in *_test.c) ;; *) lib="$lib $f" ;; esac
done
# shellcheck disable=SC2086 # $lib is a list of paths without spaces
clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -Iinclude -Isrc/layout fuzz/fuzz_layout.c $lib -lm -o "$out/fuzz_layout"

new=$(mktemp -d "${TMPDIR:-/tmp}/cutec-fuzz.XXXXXX")
echo "fuzz.sh: running ${secs}s; new inputs in $new"
# first directory: where new inputs are written; the seed corpus is only read
status=0
"$out/fuzz_layout" -max_total_time="$secs" -max_len=4096 -timeout=10 -print_final_stats=1 \
    -dict=fuzz/layout.dict -artifact_prefix=fuzz/crashes/ "$new" fuzz/corpus || status=$?
echo "fuzz.sh: exit $status; $(find "$new" -type f | wc -l) new inputs in $new; crashes: fuzz/crashes/"
exit "$status"
