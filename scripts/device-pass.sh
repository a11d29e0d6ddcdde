#!/bin/sh
# Runs several scripts/device-NAME.sh passes in one device call, each into $OUT/NAME, and
# leaves one tarball per pass plus a summary in $OUT (the device tool returns few files).
#   sh scripts/device-pass.sh gemm tctune
set -u
top=${OUT:-build/device-out}
mkdir -p "$top"
command -v nvidia-smi >/dev/null 2>&1 || { echo "== device-pass: skipped: no GPU here"; exit 0; }
make -j16 all tests > "$top/build.log" 2>&1 || tail -n 20 "$top/build.log"
for name in "$@"; do
    echo "######## $name $(date -u +%H:%M:%S)"
    mkdir -p "$top/$name"
    OUT="$top/$name" timeout "${PASS_TIMEOUT:-400}" sh "scripts/device-$name.sh" 2>&1 | tail -n "${TAIL:-60}"
    tar czf "$top/$name.tgz" -C "$top" "$name" && rm -rf "${top:?}/$name"
done
