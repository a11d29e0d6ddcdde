#!/bin/sh
# Checks the shell transcripts of docs/*.md against the real programs:
#   docs/check_docs.sh CUTEC            (from the repository root; CUTEC: e.g. build/cutec)
#   docs/check_docs.sh CUTEC --update   rewrite every transcript's output with what it prints
#
# A transcript is a fenced code block whose first line starts with "$ ".  Each "$ " line is
# a command, run with `sh -c` exactly as written (quotes, pipes, redirections work); the
# lines after it, up to the next "$ " line or the fence, are its expected output.
#   $ cutec ...       runs CUTEC
#   $ ./NAME ...      runs docs/examples/NAME.c, compiled against libcutec.a beside CUTEC
#                     (skipped when there is no C compiler or no libcutec.a)
# Only stdout is compared.  A command ending in "2>&1" is an error example: it must exit
# non-zero (its message is on stdout through the redirection).  Any other command must exit
# 0 and write nothing to stderr.  Trailing blanks and trailing empty lines are ignored.
# Commands run in a scratch directory holding an empty docs/img/; a picture written there
# (`show ... --svg docs/img/X.svg`) must equal the committed docs/img/X.svg.
#
# Prints one line per mismatch and ends with "docs: N passed, N failed, N skipped";
# exits 1 if anything failed.  --update also copies the pictures into docs/img/.
set -u

usage="usage: docs/check_docs.sh CUTEC [--update]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
cutec=$1
update=0
[ "${2:-}" = "--update" ] && update=1
if [ ! -d docs ] || [ ! -d include/cutec ]; then
    echo "run from the repository root" >&2
    exit 2
fi
case $cutec in /*) ;; *) cutec=$(pwd)/$cutec ;; esac
[ -x "$cutec" ] || { echo "docs: $cutec is not an executable" >&2; exit 2; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp/bin" "$tmp/work/docs/img" "$tmp/cases"
ln -s "$cutec" "$tmp/bin/cutec"
passed=0 failed=0 skipped=0

fail() {
    echo "FAIL  $*"
    failed=$((failed + 1))
}

# the examples, built once; a missing compiler or library skips the commands that use them
cc=${CC:-cc}
lib=$(dirname "$cutec")/libcutec.a
can_build=1
command -v "$cc" >/dev/null 2>&1 || can_build=0
[ -f "$lib" ] || can_build=0
# a sanitizer build's library needs the sanitizers at link time too
san=
if [ $can_build -eq 1 ] && command -v nm >/dev/null 2>&1; then
    nm "$lib" 2>/dev/null >"$tmp/syms"
    grep -q __asan_ "$tmp/syms" && san="$san -fsanitize=address"
    grep -q __ubsan_ "$tmp/syms" && san="$san -fsanitize=undefined"
fi
if [ $can_build -eq 1 ]; then
    for src in docs/examples/*.c; do
        [ -f "$src" ] || continue
        name=$(basename "$src" .c)
        # shellcheck disable=SC2086 # $san is a list of flags
        if ! "$cc" -std=c11 -Wall -Wextra -Werror $san -Iinclude "$src" "$lib" -lm \
            -o "$tmp/work/$name" 2>"$tmp/ccerr"; then
            fail "$src: does not compile: $(head -n 1 "$tmp/ccerr")"
        fi
    done
fi

# split the transcripts into cases: N.cmd, N.exp, and "N<TAB>FILE<TAB>LINE" in index
awk -v dir="$tmp/cases" '
    function finish() { if (ef != "") { close(ef); ef = "" } }
    FNR == 1 { finish(); fence = 0; tx = 0 }
    /^```/ {
        finish()
        if (fence) { fence = 0; tx = 0 } else { fence = 1; first = 1 }
        next
    }
    fence && first { first = 0; tx = ($0 ~ /^\$ /) }
    fence && tx {
        if ($0 ~ /^\$ /) {
            finish()
            n++
            f = dir "/" n ".cmd"
            c = substr($0, 3)
            sub(/[ \t]+$/, "", c)
            print c > f
            close(f)
            printf "%d\t%s\t%d\n", n, FILENAME, FNR >> (dir "/index")
            ef = dir "/" n ".exp"
            printf "" > ef
        } else {
            print > ef
        }
    }
    END { finish() }
' docs/*.md

# FILE -> FILE.n: trailing blanks and trailing empty lines dropped
normalize() {
    sed 's/[[:space:]]*$//' "$1" |
        awk '{ l[NR] = $0 } END { n = NR; while (n > 0 && l[n] == "") n--; for (i = 1; i <= n; i++) print l[i] }' >"$1.n"
}

tab=$(printf '\t')
[ -f "$tmp/cases/index" ] || { fail "no transcripts found in docs/*.md"; : >"$tmp/cases/index"; }
while IFS=$tab read -r n file line; do
    cmd=$(cat "$tmp/cases/$n.cmd")
    where="$file:$line: \$ $cmd"
    cp "$tmp/cases/$n.exp" "$tmp/cases/$n.out.n" # what --update keeps if it does not run
    word=${cmd%% *}
    case $word in
    cutec) ;;
    ./*)
        name=${word#./}
        if [ ! -f "docs/examples/$name.c" ]; then
            fail "$where: no docs/examples/$name.c"
            continue
        elif [ $can_build -eq 0 ]; then
            echo "skipped: $where: no C compiler or no libcutec.a to build docs/examples/$name.c" >&2
            skipped=$((skipped + 1))
            continue
        fi
        ;;
    *)
        fail "$where: only cutec and ./EXAMPLE commands are run"
        continue
        ;;
    esac
    (cd "$tmp/work" && PATH="$tmp/bin:$PATH" sh -c "$cmd") </dev/null >"$tmp/cases/$n.out" 2>"$tmp/err"
    rc=$?
    normalize "$tmp/cases/$n.out"
    normalize "$tmp/cases/$n.exp"
    case $cmd in
    *'2>&1')
        if [ $rc -eq 0 ]; then
            fail "$where: an error example (2>&1) exited 0"
            continue
        fi
        ;;
    *)
        if [ $rc -ne 0 ]; then
            fail "$where: exit status $rc: $(head -n 1 "$tmp/err")"
            continue
        elif [ -s "$tmp/err" ]; then
            fail "$where: wrote to stderr: $(head -n 1 "$tmp/err")"
            continue
        fi
        ;;
    esac
    if cmp -s "$tmp/cases/$n.out.n" "$tmp/cases/$n.exp.n"; then
        passed=$((passed + 1))
    elif [ $update -eq 1 ]; then
        echo "updated  $where"
        passed=$((passed + 1))
    else
        # the first line that differs, expected vs got
        d=$(awk 'NR == FNR { e[FNR] = $0; ne = FNR; next }
                 { g[FNR] = $0; ng = FNR }
                 END { m = ne > ng ? ne : ng
                       for (i = 1; i <= m; i++) if (!(i in e) || !(i in g) || e[i] != g[i]) {
                           printf "line %d: expected \"%s\", got \"%s\"", i,
                               (i in e) ? e[i] : "<end>", (i in g) ? g[i] : "<end>"
                           exit } }' "$tmp/cases/$n.exp.n" "$tmp/cases/$n.out.n")
        fail "$where: $d"
    fi
done <"$tmp/cases/index"

# pictures: each one drawn must equal the committed file
for pic in "$tmp/work/docs/img/"*; do
    [ -f "$pic" ] || continue
    name=docs/img/$(basename "$pic")
    if [ $update -eq 1 ]; then
        if cmp -s "$pic" "$name"; then
            passed=$((passed + 1))
        elif mkdir -p docs/img && cp "$pic" "$name"; then
            echo "updated  $name"
            passed=$((passed + 1))
        else
            fail "$name: cannot write it"
        fi
    elif [ ! -f "$name" ]; then
        fail "$name: drawn by a transcript but not in the repository"
    elif cmp -s "$pic" "$name"; then
        passed=$((passed + 1))
    else
        fail "$name: differs from what its transcript draws"
    fi
done

# --update: write each case's output back in place of its transcript text
if [ $update -eq 1 ]; then
    for doc in docs/*.md; do
        awk -v dir="$tmp/cases" -v doc="$doc" -F '\t' '
            FILENAME == dir "/index" { if ($2 == doc) at[$3] = $1; next }
            /^```/ { skip = 0; print; next }
            FNR in at {
                print
                f = dir "/" at[FNR] ".out.n"
                while ((getline l < f) > 0) print l
                close(f)
                skip = 1
                next
            }
            skip && /^\$ / { skip = 0 }
            !skip { print }
        ' "$tmp/cases/index" "$doc" >"$tmp/doc.md" && cat "$tmp/doc.md" >"$doc"
    done
fi

echo "docs: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
