#!/bin/sh
# Runs every test of a build and prints one total:
#   scripts/run-tests.sh BUILD_DIR        (`make test` calls it)
# BUILD_DIR is relative to the repository root, where the tests run (they read
# ../shared/oracle from there).
#
# 1. every program under BUILD_DIR/tests/ (the fuzz corpus replay among them): each prints
#    a last line "name: N passed, N failed, N skipped"; a crash, a non-zero exit or a
#    missing summary line is one more failure of that program;
# 2. BUILD_DIR/cutec layout check on ../shared/oracle/*.public.jsonl (last line
#    "N passed, N failed"); no oracle beside the repository is one skip;
# 3. docs/check_docs.sh: every transcript in docs/*.md re-run against BUILD_DIR/cutec (in
#    1.'s pool of jobs, beside the programs).
# Before the total, the list of skipped checks and why: each program's "skipped: WHY" lines
# (tests/check.h's SKIP prints them on stderr), one line per check, named by program.
# The last line is "N passed, N failed, N skipped"; the exit status is 1 if anything failed.
# A program's output is shown (its tail) only when it fails.
set -u

build=${1:?usage: scripts/run-tests.sh BUILD_DIR}
cd "$(dirname "$0")/.." || exit 1
oracle=../shared/oracle
limit=${CUTEC_TEST_TIMEOUT:-600} # seconds per program, so a hang fails instead of CI
# Under SAN=1, LeakSanitizer's exit-time tracer of GCC <= 13 (LLVM <= 16) can crash ("Tracer
# caught signal 11") in any program that dlopens NVRTC: its __tls_get_addr interceptor takes a
# dynamic TLS block that malloc happened to place at offset 16 of a page for a pre-2.25 glibc
# header and reads a bogus range from the two words before it (glibc has had no such header
# since 2.25).  Where the block lands depends on the heap's history, hence a flake.  Turning the
# interceptor off is safe: the blocks stay reachable (and scanned) through glibc's dtv.  Later
# settings win, so a caller's ASAN_OPTIONS can still turn it back on.
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# One JIT cache for every build's run (build-cache/, unless the caller names one): the
# sanitizer build's tests generate the same CUDA C as the plain build's, so their compiles
# that load nothing (ptxas reports, PTX checks: src/jit/nvrtc_of.c) are hits, and the host
# code around them still runs under the sanitizers.  Tests of the cache itself name their own.
export CUTEC_CACHE_DIR="${CUTEC_CACHE_DIR:-$PWD/build-cache}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0

# run CMD...: output into $tmp/out, $tmp/err; sets $rc
run() {
    if command -v timeout >/dev/null 2>&1; then
        timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err"
    else
        "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
}

# the program's output tail, indented, after a failure
show_tail() {
    tail -n 20 "$tmp/err" | sed 's/^/    | /'
    tail -n 5 "$tmp/out" | sed 's/^/    > /'
}

# "N passed, N failed[, N skipped]" at the end of the last line -> $p $f $s, or return 1
summary() {
    line=$(tail -n 1 "$tmp/out")
    nums=$(printf '%s\n' "$line" |
        sed -n 's/^\(.*: \)\{0,1\}\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed\(, \([0-9][0-9]*\) skipped\)\{0,1\}$/\2 \3 \5/p')
    [ -n "$nums" ] || return 1
    # shellcheck disable=SC2086 # split the three numbers
    set -- $nums
    p=$1 f=$2 s=${3:-0}
}

# the run's "skipped: WHY" lines, kept for the list at the end
note_skips() {
    sed -n "s|^skipped: \(.*\)|  $1: \1|p" "$tmp/err" >>"$tmp/skips"
}

# add the counts of one run; a bad exit with no failure counted is one failure more
tally() {
    label=$1
    note_skips "$label"
    if summary; then
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        if [ "$f" -eq 0 ]; then
            echo "ok    $label: $p passed, $s skipped"
            return
        fi
        echo "FAIL  $label: $p passed, $f failed, $s skipped (exit $rc)"
    else
        failed=$((failed + 1))
        if [ "$rc" -gt 128 ]; then
            echo "FAIL  $label: crashed (signal $((rc - 128))), no summary line"
        elif [ "$rc" -eq 124 ]; then
            echo "FAIL  $label: timed out after ${limit}s"
        else
            echo "FAIL  $label: exit $rc, no summary line"
        fi
    fi
    show_tail
}

# 1. test programs, $jobs at a time (CUTEC_TEST_JOBS, default: the CPUs; the programs are
#    single-threaded and independent), reported in name order as each one's turn comes
progs=$(find "$build/tests" -type f -perm -u+x 2>/dev/null | LC_ALL=C sort)
# CUTEC_TEST_PART=K/N: only the programs whose place in that order is K modulo N (a suite split
# over N GPUs or machines, scripts/device-suite.sh); the oracle and the docs run in part 0 only
part=${CUTEC_TEST_PART:-0/1}
part_k=${part%/*} part_n=${part#*/}
case "$part_k/$part_n" in
*[!0-9/]* | /* | */) echo "FAIL  CUTEC_TEST_PART=$part: want K/N, e.g. 1/4"; exit 1 ;;
esac
[ "$part_n" -gt 0 ] && [ "$part_k" -lt "$part_n" ] || { echo "FAIL  CUTEC_TEST_PART=$part: want 0 <= K < N"; exit 1; }
if [ "$part_n" -gt 1 ]; then
    progs=$(printf '%s\n' $progs | awk -v k="$part_k" -v n="$part_n" '(NR - 1) % n == k')
fi
[ -n "$progs" ] || { echo "FAIL  no test programs under $build/tests"; failed=$((failed + 1)); }
jobs=${CUTEC_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
mkdir -p "$tmp/runs"
# the docs' transcripts (3.) run in the same pool, its first job: one process of 30 to 40 s
# under the sanitizers (a whole core, idle beside it when they ran after the programs)
docs=
if [ "$part_k" -eq 0 ] && [ -x "$build/cutec" ]; then
    docs="$tmp/docs-check"
    printf '#!/bin/sh\nexec sh docs/check_docs.sh %s\n' "'$build/cutec'" >"$docs" && chmod +x "$docs"
fi
i=0
for prog in $docs $progs; do
    i=$((i + 1))
    echo "$i $prog"
done | xargs -P "$jobs" -n 2 sh -c '
    b=$1$2
    if command -v timeout >/dev/null 2>&1; then timeout "$0" "$3" >"$b.out" 2>"$b.err"; else "$3" >"$b.out" 2>"$b.err"; fi
    echo $? >"$b.rc"' "$limit" "$tmp/runs/X"
# job i's output into $tmp/out and $tmp/err, its exit status into $rc
take() {
    mv "$tmp/runs/X$1.out" "$tmp/out" 2>/dev/null || : >"$tmp/out"
    mv "$tmp/runs/X$1.err" "$tmp/err" 2>/dev/null || : >"$tmp/err"
    rc=$(cat "$tmp/runs/X$1.rc" 2>/dev/null || echo 127)
}
i=0
[ -n "$docs" ] && i=1
for prog in $progs; do
    i=$((i + 1))
    take $i
    tally "${prog#"$build/tests/"}"
done

# 2. the oracle conformance check
if [ "$part_k" -ne 0 ]; then
    : # (part 0's)
elif [ ! -d "$oracle" ]; then
    echo "skip  oracle: $oracle not found"
    echo "  oracle: $oracle not found" >>"$tmp/skips"
    skipped=$((skipped + 1))
elif [ ! -x "$build/cutec" ]; then
    echo "FAIL  oracle: $build/cutec not built"
    failed=$((failed + 1))
else
    run "$build/cutec" layout check "$oracle"/*.public.jsonl
    tally "oracle (cutec layout check)"
fi

# 3. the documentation's transcripts, re-run against this build (run in 1.'s pool)
if [ -n "$docs" ]; then
    take 1
    tally "docs (docs/check_docs.sh)"
fi

if [ -s "$tmp/skips" ]; then
    echo "skipped checks, and why:"
    cat "$tmp/skips"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
