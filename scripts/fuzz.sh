#!/bin/sh
# Builds the libFuzzer targets fuzz/fuzz_*.c with clang (ASan+UBSan) and runs each:
#   scripts/fuzz.sh [SECONDS [TARGET...]]   default 60 s each, every target; from the root
#   targets: layout (notation, algebra), cli (argument parsing), jit (spec strings, call
#   checks), cache (the entry reader)
# Each target starts from its seed corpus fuzz/corpus/TARGET (read only) and the tokens of
# fuzz/TARGET.dict when there is one; new inputs go to a temporary directory (printed),
# crashes to fuzz/crashes/.  For developers: `make test` replays every fuzz/corpus/TARGET
# through the Makefile's replay_TARGET programs instead (no clang needed).
set -eu
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-$(for f in fuzz/fuzz_*.c; do t=${f#fuzz/fuzz_}; echo "${t%.c}"; done)}
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

# the libraries (every source the Makefile puts in libcutec.a and libcutec_cli.a),
# instrumented for coverage; warnings are shown, not fatal: clang's set is not gcc's, and the
# targets themselves are built with -Werror below.  `rm -rf build-fuzz` rebuilds from scratch.
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Iinclude -Isrc -Isrc/layout $san"
srcs=$(ls src/*/*.c src/*/*/*.c 2>/dev/null | grep -v -e '_test\.c$' -e '^src/cli/main\.c$')
for f in $srcs; do
    o="$out/obj/${f%.c}.o"
    [ -f "$o" ] && [ "$o" -nt "$f" ] && continue
    mkdir -p "$(dirname "$o")"
    echo "$f"
done | xargs -r -P2 -I{} sh -c 'o="$1/obj/$(echo "$2" | sed "s/\.c$/.o/")"; clang $3 -fsanitize=fuzzer-no-link -c "$2" -o "$o" 2>"$o.log" || { cat "$o.log"; exit 255; }' _ "$out" {} "$flags"
objs=$(for f in $srcs; do echo "$out/obj/${f%.c}.o"; done)

status=0
for t in $targets; do
    # shellcheck disable=SC2086 # $flags and $objs are lists
    clang $flags -Werror -fsanitize=fuzzer "fuzz/fuzz_$t.c" $objs -lm -ldl -lpthread -o "$out/fuzz_$t"
    new=$(mktemp -d "${TMPDIR:-/tmp}/cutec-fuzz-$t.XXXXXX")
    dict=
    [ -f "fuzz/$t.dict" ] && dict="-dict=fuzz/$t.dict"
    echo "fuzz.sh: $t for ${secs}s; new inputs in $new"
    # first directory: where new inputs are written; the seed corpus is only read
    # shellcheck disable=SC2086 # $dict is one option or none
    rc=0
    "$out/fuzz_$t" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 $dict -artifact_prefix="fuzz/crashes/$t-" "$new" "fuzz/corpus/$t" ||
        rc=$?
    [ "$rc" -eq 0 ] || status=$rc
    echo "fuzz.sh: $t: exit $rc; $(find "$new" -type f | wc -l) new inputs in $new"
done
echo "fuzz.sh: exit $status; crashes (if any): fuzz/crashes/"
exit "$status"
