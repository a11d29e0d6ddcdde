#!/bin/sh
# The library as its users get it (make install-check; a stage of CI):
#   scripts/install-check.sh BUILD_DIR
# 1. make install into a fresh PREFIX (and once with DESTDIR), every file where docs/install.md
#    says;  2. nm -D: the shared library exports only cute_/cutec_ names;  3. every examples/*.c
#    built with `pkg-config --cflags --libs cutec` alone against the installed tree, and run
#    (the interpreter here; a GPU where there is one), plus one linked statically;
#    4. `cutec export gemm` and examples/exported_gemm.c built against its launcher with cc
#    and the CUDA driver alone (the toolkit's stub libcuda; skipped without the toolkit);
#    5. python/'s tests with the installed library;  6. make uninstall leaves no file behind.
# Each check is one line "ok|FAIL  what"; the last line is "N passed, N failed, N skipped".
set -u
build=${1:?usage: scripts/install-check.sh BUILD_DIR}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
passed=0 failed=0 skipped=0
cc=${CC:-cc}

# check WHAT CMD...: one line, counted; the command's output only when it fails
check() {
    what=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        passed=$((passed + 1))
        echo "ok    $what"
    else
        failed=$((failed + 1))
        echo "FAIL  $what"
        tail -n 15 "$tmp/out" | sed 's/^/    | /'
    fi
}

# the files of a tree (symbolic links included), relative to it
files_under() { (cd "$1" && find . ! -type d | LC_ALL=C sort); }

installed_ok() {
    for f in bin/cutec lib/libcutec.a lib/libcutec.so lib/pkgconfig/cutec.pc \
        include/cutec/jit.h include/cutec/kernels.h include/cutec/api.h; do
        [ -e "$1/$f" ] || { echo "missing: $f"; return 1; }
    done
    so=$(readlink "$1/lib/libcutec.so") && [ -f "$1/lib/$so" ] || { echo "dangling libcutec.so"; return 1; }
    readelf -d "$1/lib/$so" | grep -q 'SONAME.*libcutec\.so\.[0-9]*\]' || { echo "no soname"; return 1; }
    [ -e "$1/lib/$(readelf -d "$1/lib/$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')" ]
}

# only cute_/cutec_ names among the shared library's defined dynamic symbols
exports_only_api() {
    nm -D --defined-only "$1" | awk '{print $NF}' | grep -v -e '^cute_' -e '^cutec_' >"$tmp/extra"
    [ ! -s "$tmp/extra" ] || { echo "exported beyond the API:"; head -n 20 "$tmp/extra"; return 1; }
}

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
example() { # NAME [static]
    flags=$(pkg-config --cflags --libs ${2:+--static} cutec) || return 1
    [ -n "${2:-}" ] && flags=$(echo "$flags" | sed 's/-lcutec/-l:libcutec.a/')
    # shellcheck disable=SC2086 # pkg-config's flags are words
    $cc -std=c11 -Wall -Wextra -Werror "examples/$1.c" $flags -lm -o "$tmp/$1" &&
        LD_LIBRARY_PATH="$prefix/lib" "$tmp/$1"
}

# every public header with declarations marks them for export (cutec/api.h)
headers_marked() {
    for h in include/cutec/*.h; do
        case $h in */api.h) continue ;; esac
        # a declaration: a ';' outside the comment lines (forwarding headers have none)
        grep -v -e '^ *\*' -e '^/\*' "$h" | grep -q ';' && ! grep -q 'CUTE_API_BEGIN' "$h" &&
            echo "$h: no CUTE_API_BEGIN"
    done | grep . && return 1
    return 0
}

check "every public header marks its API (CUTE_API_BEGIN ... CUTE_API_END)" headers_marked
check "make install PREFIX=$prefix" make -s install "BUILD=$build" "PREFIX=$prefix"
check "the installed tree (library, soname links, headers, cutec.pc, cutec)" installed_ok "$prefix"
check "nm -D libcutec.so: only cute_/cutec_ names" exports_only_api "$prefix/lib/libcutec.so"
check "installed cutec runs" "$prefix/bin/cutec" layout size "(4,8):(8,1)"
for src in examples/*.c; do
    name=$(basename "$src" .c)
    case $name in exported_*) continue ;; esac # no cutec in those: below
    check "examples/$name.c: built with pkg-config alone, run" example "$name"
done

# an exported GEMM launcher with examples/exported_gemm.c, built with cc against the CUDA
# driver alone (the toolkit's stub libcuda: it runs on the GPU machine, scripts/device-install.sh)
cuda=${CUDA_HOME:-/usr/local/cuda}
exported() {
    mkdir -p "$tmp/export" &&
        "$prefix/bin/cutec" export gemm --dtype bf16 --out-dtype f32 --layout tnt \
            --arch sm_90a --out "$tmp/export" --name gemm_bf16 &&
        $cc -std=c11 -Wall -Wextra -Werror examples/exported_gemm.c "$tmp/export/gemm_bf16.c" \
            -I"$tmp/export" -I"$cuda/include" -L"$cuda/lib64/stubs" -lcuda -lm \
            -o "$tmp/exported_gemm" || return 1
    # it needs the driver and libc, nothing of cutec or NVRTC
    readelf -d "$tmp/exported_gemm" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' >"$tmp/needed"
    ! grep -v -e '^libcuda\.so' -e '^libc\.so' -e '^libm\.so' "$tmp/needed"
}
if [ -f "$cuda/include/cuda.h" ] && [ -f "$cuda/lib64/stubs/libcuda.so" ]; then
    check "cutec export gemm bf16; examples/exported_gemm.c built with cc -lcuda alone" exported
else
    echo "skip  cutec export: no CUDA toolkit (cuda.h, stub libcuda)"
    skipped=$((skipped + 1))
fi
check "examples/gemm.c linked statically (pkg-config --static)" example gemm static
# the Python package (python/) on the installed library: its interpreter tests here, its
# PyTorch tests where torch and a GPU are (they skip visibly otherwise)
python_tests() {
    (cd python/tests && CUTEC_LIB="$prefix/lib/libcutec.so" PYTHONPATH=.. \
        PYTHONDONTWRITEBYTECODE=1 python3 -m unittest test_interp test_fast_path test_torch)
}
if command -v python3 >/dev/null 2>&1; then
    check "python/: the package's tests on the installed libcutec.so" python_tests
    if grep -q 'skipped=' "$tmp/out"; then
        echo "skip  python/: $(grep -o 'skipped=[0-9]*' "$tmp/out") PyTorch tests (no torch or no GPU)"
        skipped=$((skipped + 1))
    fi
else
    echo "skip  python/: no python3"
    skipped=$((skipped + 1))
fi
files_under "$prefix" >"$tmp/before"
check "make uninstall" make -s uninstall "BUILD=$build" "PREFIX=$prefix"
check "nothing left behind by uninstall" test -z "$(files_under "$prefix")"
check "make install DESTDIR=$tmp/stage PREFIX=/opt/cutec" make -s install "BUILD=$build" \
    "DESTDIR=$tmp/stage" PREFIX=/opt/cutec
check "DESTDIR holds what PREFIX held" cmp "$tmp/before" \
    "$(files_under "$tmp/stage/opt/cutec" >"$tmp/staged" && echo "$tmp/staged")"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
