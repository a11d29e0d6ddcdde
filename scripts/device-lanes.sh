#!/bin/sh
# Several scripts/device-*.sh passes in one device call, in parallel lanes, one a GPU:
#   LANE0="name:seconds ..." LANE1="..." [LANE2=... LANE3=...] sh scripts/device-lanes.sh
# runs scripts/device-<name>.sh (a part "name=P:seconds" with PART=P) with OUT=/tmp/lanes/<name> under a limit of <seconds>, the
# parts of a lane one after another on GPU <lane>.  When a part ends or runs out of time, every
# process of its lane still alive is killed (found by the CUTEC_LANE it inherited: a killed
# part's inner `timeout`s sit in process groups of their own and would run on into the next
# part).  Builds `make all tests` once first (NO_BUILD=1: not).  A part whose name has a patch
# .wt/<name>.patch (an engineer's branch: `git diff --binary BASE BRANCH`, sent with carry: .wt)
# runs in a copy of this tree with the patch applied: it builds that copy and runs the copy's
# scripts/device-<name>.sh (the build within the part's limit; PREBUILD=1: every branch's tree is built
# first, side by side, before any lane starts, so that no build runs beside another lane's timings).  Brings back $OUT/laneN.txt (each lane's
# transcript) and $OUT/lanes.tgz (every part's logs); prints the lanes' tails.
set -u
OUT=${OUT:-build/device-out}
W=/tmp/lanes
rm -f "$W"/lane?.done
mkdir -p "$OUT" "$W"
start=$(date +%s)
el() { echo $(($(date +%s) - start)); }

reap() # lane: kill what is left of its parts
{
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = "$$" ] && continue
        { tr "\0" "\n" <"$p/environ"; } 2>/dev/null | grep -qx "CUTEC_LANE_PART=$1" && kill -9 "$pid" 2>/dev/null
    done
}

patched_tree() # name: the commands that make /tmp/trees/<name>, this tree with .wt/<name>.patch applied, built
{
    echo "tree=/tmp/trees/$1; rm -rf \$tree && mkdir -p \$tree &&
        tar -C . --exclude=./build --exclude=./build-cache --exclude=./.wt -cf - . | tar -C \$tree -xf - &&
        cd \$tree && { git apply --binary '$PWD/.wt/$1.patch' || patch -p1 <'$PWD/.wt/$1.patch'; } && echo '== $1: patch applied' &&
        make -k -j16 all tests 2>&1 | grep -E 'error|warning' | head -20"
}

lane() # index, "name:seconds ..."
{
    for spec in $2; do
        name=${spec%%:*} lim=${spec##*:}
        script=${name%%=*} sub=${name#*=}
        [ "$sub" = "$name" ] && sub=
        echo "==== $name at $(el) s (limit $lim s)"
        mkdir -p "$W/$name"
        if [ -e ".wt/$script.patch" ]; then # an engineer's branch: this tree with its patch applied
            tree="/tmp/trees/$script"
            [ -e "$tree/.prebuilt" ] || CUTEC_LANE_PART=$1 timeout "$lim" sh -c "$(patched_tree "$script")" 2>&1
            (cd "$tree" && CUTEC_LANE_PART=$1 timeout "$lim" sh -c "OUT='$W/$name' PART='$sub' sh scripts/device-$script.sh" 2>&1)
        else
            OUT="$W/$name" PART=$sub CUTEC_LANE_PART=$1 timeout "$lim" sh "scripts/device-$script.sh" 2>&1
        fi
        echo "==== $name done at $(el) s (rc $?)"
        reap "$1"
    done
    echo "==== lane $1 done at $(el) s"
    touch "$W/lane$1.done" # for a part "wait=N" of another lane (scripts/device-wait.sh)
}

echo "== $(date -u '+%F %T') $(git log --oneline -1 2>/dev/null)"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
cc --version | head -n 1
[ -n "${NO_BUILD:-}" ] || make -k -j"$(nproc)" all tests 2>&1 | grep -E "error|warning" | head -40
echo "== built at $(el) s"
if [ -n "${PREBUILD:-}" ]; then # every branch's tree built now, side by side, so no build runs beside a timing
    for p in .wt/*.patch; do
        [ -e "$p" ] || continue
        n=$(basename "$p" .patch)
        (sh -c "$(patched_tree "$n")" && touch "/tmp/trees/$n/.prebuilt") >"$W/prebuild-$n.txt" 2>&1 &
    done
    wait
    cat "$W"/prebuild-*.txt 2>/dev/null
    echo "== the branches' trees built at $(el) s"
fi
for i in 0 1 2 3; do
    eval "spec=\${LANE$i:-}"
    eval "gpus=\${LANE${i}_GPUS:-$i}" # LANEi_GPUS=2,3: a lane of two GPUs (multi-GPU scripts)
    [ -n "$spec" ] && (export CUDA_VISIBLE_DEVICES=$gpus; lane "$i" "$spec") >"$OUT/lane$i.txt" 2>&1 &
done
wait
nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
tar czf "$OUT/lanes.tgz" -C "$W" .
echo "== all done at $(el) s"
for f in "$OUT"/lane?.txt; do echo "#### $f"; tail -n "${TAIL:-40}" "$f"; done
