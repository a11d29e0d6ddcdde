#!/bin/sh
# A tiered cold compile's first module, assembled other ways (branch cold15; docs/compile_time.md
# "Tiers", "The first tier's ptxas"), one GPU, at most about 85 s on an H200 after `make all tests`.
# The first tier is the PTX backend's module through the ptxas binary at -O1, started by fork
# (the default: the Hopper GEMM's first module 470-507 ms on the H200's host, ptxas alone 407-434;
# the issue asks under 300).  On the development machine no ptxas option assembles the Hopper
# GEMM's PTX quicker without spilling (-O0..-O3, --Ofast-compile, -allow-expensive-optimizations,
# register limits: 270-310 ms of CPU at -O1..-O3), so the ways tried here start or run the same
# ptxas otherwise (each opt-in, CUTEC_PTXAS_SPAWN / CUTEC_PTX_ASM):
#  - spawn: the binary through posix_spawn (a vfork), not fork, which copies the page tables of
#    the whole caller (CUDA context, NVRTC, and NVRTC's final tier growing its heap beside it);
#  - thp: the binary's malloc on transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1:
#    its page faults 11,100 -> 500-1,500, CPU 291 -> 269 ms here);
#  - loaddata: the driver's JIT compiler on the PTX, in the process (cuModuleLoadDataEx, -O1);
#  - nvjitlink: libnvJitLink's ptxas in the process (a relocatable unit: setmaxnreg ignored,
#    the Hopper GEMM spills 340 bytes here; timed for the record, never a default for Hopper).
# Steps:
#  1. on the GPU against references FIRST: tier_gpu_test (its first tier each way, final held
#     back, right against float64); `cutec run` cold through tiers of the Hopper and step-5
#     GEMMs each way whose code differs (the binary, loaddata, nvjitlink) with the final tier
#     held back (CUTEC_NVRTC_OPTIONS that NVRTC refuses: the first tier's code is what runs;
#     float64 checked), then once with the final tier;
#  2. ptxas alone on the Hopper GEMM's first-tier PTX at -O1 (on huge pages or not) and -O3
#     (wall ms, best of 3: the host's figures beside the development machine's; the other
#     options in the early passes), and `--emit time` (the driver's JITs, registers, spills);
#  3. `cutec bench tiers --rounds 5 --size 4096 --ways ptxas,spawn,thp,loaddata,nvjitlink`: each
#     way's first module (best and worst of 5, wall / CPU) and final tier in; then the first
#     tier's own TFLOP/s each way whose code differs (its final held back) against NVRTC's.
# Decides (rules; a FAIL in a test or a final tier not verified in step 1 -> nothing changes,
# and that is a bug; a way whose first tier is not verified changes nothing itself):
# The host is shared with other lanes: within one way the first module spread 100-300 ms over
# the early and mid passes (best 438-596 ms for the same binary at -O1), so a way must win in
# its best and its worst round, by 10% on Hopper:
#  - spawn: its first module's best and worst no later than fork's (+ 5 ms) for both GEMMs and
#    its best at most 0.9 of fork's on Hopper -> `ptxas_spawn_default = true` in
#    src/backend/ptx_ptxas.c (one line; the same binary, the same cubin); else it stays opt-in
#    (CUTEC_PTXAS_SPAWN=1).
#  - thp: the same rule against fork's, and ptxas alone on huge pages (step 2) no slower than
#    without (+ 2%) -> `ptxas_thp_default = true` in ptx_ptxas.c; else opt-in
#    (CUTEC_PTXAS_THP=1).  (The mid pass: the bench 476 against 596 ms, but ptxas alone 509
#    against 392 on huge pages, as in the second early pass, 534 against 393.)
#  - loaddata: its Hopper first module's best at most 0.9 of the binary's (the better of the
#    ways above) and its worst no later, its first-tier code without spills (step 2) and at
#    least 0.7 of NVRTC's speed for both GEMMs, its checks verified -> `ptx_asm_default =
#    CUTE_PTX_ASM_LOADDATA` in src/backend/ptx_ptxas.c; else opt-in (CUTEC_PTX_ASM=loaddata).
#  - nvjitlink: the same rule (its spills from ptx_asm_test's line): it spills on Hopper here,
#    so expected to stay opt-in.
#  - the issue's mark: the Hopper GEMM's first module under 300 ms in every cold run (its
#    worst of 5; the issue asks 3 of 3) by the way decided: "met" or "not met" (its figure).
# Past BUDGET_S (85) the remaining steps print "skipped"; without a GPU the GPU steps skip.
# Logs in $OUT (default build/device-out).
. scripts/device-common.sh
log="$out/cold15.log"
start=$(date +%s) budget=${BUDGET_S:-85}
export CUDA_CACHE_DISABLE=1
gpu=1 bad=0
hopper="gemm --variant hopper --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7"
step5="gemm --variant tensorop_smem --dtype bf16 --layout tn --m 1000 --n 1030 --k 520 --beta 0.5 --seed 7"

# `cutec run ARGS` cold through tiers, the first tier assembled as ENV says and its final tier
# held back (NVRTC refuses an option: the first tier's code runs): its verdict line (not the
# "background compile failed" said at exit); one not verified is named in cold15-unverified.txt
# (that way changes nothing)
held_check() # ENV ARGS...
{
    way=$1
    shift
    gpu_late run "$way" && return
    res=$(env CUTEC_TIER=1 CUTEC_NO_CACHE=1 CUTEC_NVRTC_OPTIONS=--no-such-nvrtc-option "$way" timeout 30 \
        stdbuf -oL build/cutec run "$@" 2>&1)
    line=$(echo "$res" | grep -v "background compile" | grep -iE "verified|wrong|error|fail|refus|bad" | head -n 1 |
        cut -c1-150)
    echo "  first tier, $way: $* -> $line"
    echo "$line" | grep -qi verified || echo "$way $1 $3" >>"$out/cold15-unverified.txt"
}

# whether every held_check of way (a word of its ENV, e.g. loaddata) was verified
way_verified() { ! grep -q "$1" "$out/cold15-unverified.txt" 2>/dev/null; }

# ptxas alone on the Hopper GEMM's first-tier PTX: wall ms, best of 3 (the options taking
# turns), and its spills; "thp": -O1 with its malloc on huge pages
ptxas_alone()
{
    gpu_late ptxas alone && return
    build/cutec compile gemm --dtype bf16 --arch sm_90a --codegen ptx --emit ptx >"$out/hopper.ptx" 2>/dev/null
    : >"$out/ptxas-times.txt"
    for r in 1 2 3; do
        for o in "-O1" "thp" "-O3"; do
            tun= opts=$o
            [ "$o" = thp ] && tun=glibc.malloc.hugetlb=1 opts=-O1
            t0=$(date +%s%N)
            # shellcheck disable=SC2086
            GLIBC_TUNABLES=$tun /usr/local/cuda/bin/ptxas -arch=sm_90a $opts -v -o "$out/hopper.cubin" "$out/hopper.ptx" \
                >"$out/ptxas.log" 2>&1
            echo "$((($(date +%s%N) - t0) / 1000000)) $o; $(grep -o '[0-9]* bytes spill stores' "$out/ptxas.log" | head -n 1)" \
                >>"$out/ptxas-times.txt"
        done
    done
    sort -n "$out/ptxas-times.txt" | awk '{ o = $0; sub(/^[0-9]+ /, "", o) } !seen[o]++ { print "ptxas " o " (best of 3): " $1 " ms" }'
}

decide()
{
    [ "$bad" = 0 ] || { echo "decides: nothing changes: $bad check(s) not verified (a bug)"; return; }
    [ -s "$out/cold15-unverified.txt" ] && echo "first tiers not verified (their ways change nothing; a bug): $(tr '\n' ';' <"$out/cold15-unverified.txt")"
    ok_spawn=0 ok_thp=0 ok_load=0 ok_jl=0
    way_verified SPAWN && ok_spawn=1
    way_verified THP && way_verified SPAWN=0 && ok_thp=1
    way_verified loaddata && ok_load=1
    way_verified nvjitlink && ok_jl=1
    grep -q "FAILED" "$out/bench-ways.txt" && { echo "decides: nothing changes: a compile or a final tier FAILED (a bug)"; return; }
    loadspill=$(grep "PTX loaded as a module" "$out/emit-time.txt" | grep -o "[0-9]* bytes spilled" | grep -o "^[0-9]*")
    jlspill=$(grep "nvJitLink, the Hopper GEMM" "$out/ptx_asm_test.log" 2>/dev/null | grep -o "[0-9]* bytes spilled" | grep -o "^[0-9]*")
    alone=$(sort -n "$out/ptxas-times.txt" 2>/dev/null | awk '/ -O1;/ && !a { a = $1 } / thp;/ && !t { t = $1 } END { print a + 0, t + 0 }')
    awk -v loadspill="${loadspill:--1}" -v jlspill="${jlspill:--1}" -v ok_spawn=$ok_spawn -v ok_thp=$ok_thp -v ok_load=$ok_load \
        -v ok_jl=$ok_jl -v alone="$alone" '
        # the numbers of way w in a "cold compile by way" row: best wall, worst wall
        function way(line, w, what,   i, n, f, r) {
            n = split(line, f, "; ")
            for (i = 1; i <= n; i++) if (index(f[i], w " first module ") == 1) {
                split(f[i], r, " ")
                return what == "best" ? r[4] + 0 : r[8] + 0
            }
            return -1
        }
        # way w beats way b: best and worst no later (+ 5 ms) for both GEMMs, Hopper best 10% sooner
        function wins(s5, hp, w, b) {
            return way(s5, w, "best") > 0 && way(hp, w, "best") > 0 && way(s5, b, "best") > 0 && way(hp, b, "best") > 0 &&
                   way(s5, w, "best") <= way(s5, b, "best") + 5 && way(s5, w, "worst") <= way(s5, b, "worst") + 5 &&
                   way(hp, w, "worst") <= way(hp, b, "worst") + 5 && way(hp, w, "best") <= 0.9 * way(hp, b, "best")
        }
        function speed(line, w,   i, n, f, r) {
            n = split(line, f, "; ")
            for (i = 1; i <= n; i++) if (index(f[i], w " first tier ") == 1) { split(f[i], r, "[()]"); return r[2] + 0 }
            return -1
        }
        /^step 5 +cold compile by way/ { s5 = $0 }
        /^hopper +cold compile by way/ { hp = $0 }
        /^step 5 +[0-9]+\^3 TFLOP/ { s5s = $0 }
        /^hopper +[0-9]+\^3 TFLOP/ { hps = $0 }
        END {
            sf = way(s5, "ptxas", "best"); ss = way(s5, "spawn", "best"); hf = way(hp, "ptxas", "best"); hs = way(hp, "spawn", "best")
            printf "first module, best of 5 (ms): step 5 fork %s, spawn %s, loaddata %s, nvjitlink %s; hopper fork %s, spawn %s, loaddata %s, nvjitlink %s\n", sf, ss, way(s5, "loaddata", "best"), way(s5, "nvjitlink", "best"), hf, hs, way(hp, "loaddata", "best"), way(hp, "nvjitlink", "best")
            spawn = ok_spawn && wins(s5, hp, "spawn", "ptxas")
            printf "spawn: step 5 %s / %s, hopper %s / %s (fork %s / %s, %s / %s), best / worst\n", ss, way(s5, "spawn", "worst"), hs, way(hp, "spawn", "worst"), sf, way(s5, "ptxas", "worst"), hf, way(hp, "ptxas", "worst")
            if (spawn) print "decides: ptxas through posix_spawn: ptxas_spawn_default = true in src/backend/ptx_ptxas.c (best and worst no later for both, Hopper 10% sooner)"
            else print "decides: spawn stays opt-in (CUTEC_PTXAS_SPAWN=1): ptxas_spawn_default stays false (not 10% sooner on Hopper in its best, later in its worst, or not verified)"
            ts = way(s5, "thp", "best"); th = way(hp, "thp", "best"); split(alone, al, " ")
            printf "thp: step 5 %s / %s, hopper %s / %s, best / worst; ptxas alone %s ms on huge pages against %s\n", ts, way(s5, "thp", "worst"), th, way(hp, "thp", "worst"), al[2], al[1]
            thp = ok_thp && wins(s5, hp, "thp", "ptxas") && al[1] > 0 && al[2] > 0 && al[2] <= 1.02 * al[1]
            if (thp) print "decides: ptxas on huge pages: ptxas_thp_default = true in src/backend/ptx_ptxas.c (best and worst no later for both, Hopper 10% sooner, ptxas alone no slower)"
            else print "decides: thp stays opt-in (CUTEC_PTXAS_THP=1): ptxas_thp_default stays false (not 10% sooner on Hopper in its best, later in its worst, ptxas alone slower on huge pages, or not verified)"
            bin_s5 = spawn ? ss : sf; bin_hp = spawn ? hs : hf
            if (thp && ts < bin_s5) bin_s5 = ts
            if (thp && th < bin_hp) bin_hp = th
            chosen = spawn ? "spawn" : "ptxas"; chosen_worst = way(hp, chosen, "worst")
            if (thp && th <= way(hp, chosen, "best")) { chosen = "thp"; chosen_worst = way(hp, "thp", "worst") }
            split("loaddata nvjitlink", ws, " ")
            for (k = 1; k <= 2; k++) {
                w = ws[k]; wh = way(hp, w, "best"); ws5 = way(s5, w, "best"); vh = speed(hps, w); v5 = speed(s5s, w)
                spill = w == "loaddata" ? loadspill : jlspill
                ok = (w == "loaddata" ? ok_load : ok_jl) && wh > 0 && ws5 > 0 && wh <= 0.9 * bin_hp && ws5 <= bin_s5 + 5 && spill == 0 && vh >= 0.7 && v5 >= 0.7 && way(hp, w, "worst") <= way(hp, chosen, "worst") + 5
                printf "%s: hopper first module %s ms (binary %s), step 5 %s (%s); first tier speed hopper %s, step 5 %s of NVRTC; hopper spills %s bytes\n", w, wh, bin_hp, ws5, bin_s5, vh, v5, spill
                if (ok) { printf "decides: the first tier by %s: ptx_asm_default = CUTE_PTX_ASM_%s in src/backend/ptx_ptxas.c\n", w, toupper(w); chosen = w; chosen_worst = way(hp, w, "worst") }
                else printf "decides: %s stays opt-in (CUTEC_PTX_ASM=%s): not 10%% sooner on Hopper, or it spills, its code under 0.7 of NVRTC, or not verified\n", w, w
            }
            if (chosen_worst > 0 && chosen_worst < 300) printf "decides: the issue mark met: the Hopper first module under 300 ms in every round (worst of 5 %s ms, %s)\n", chosen_worst, chosen
            else printf "decides: the issue mark not met: the Hopper first module worst of 5 %s ms (%s): ptxas on its PTX is most of it (docs/compile_time.md)\n", chosen_worst, chosen
        }' "$out/bench-ways.txt"
}

{
    device_begin
    rm -f "$out/cold15-unverified.txt"
    compile_gpu_head
    echo "$(ldd --version 2>&1 | head -n 1); transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1), defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>&1)"
    ls /usr/local/cuda/lib64/libnvJitLink.so* 2>&1 | head -n 2
    echo "== 1. against references first (each way's first tier with its final held back, then the final)"
    gpu_test tier_gpu_test build/tests/runtime/tier_gpu_test
    gpu_test ptx_asm_test build/tests/backend/ptx_asm_test
    # the ways whose code differs (spawn and thp run the same binary: tier_gpu_test runs them)
    ways="CUTEC_PTXAS_SPAWN=0 CUTEC_PTX_ASM=loaddata"
    ls /usr/local/cuda/lib64/libnvJitLink.so* >/dev/null 2>&1 && ways="$ways CUTEC_PTX_ASM=nvjitlink"
    for w in $ways; do
        # shellcheck disable=SC2086
        held_check "$w" $hopper
        # shellcheck disable=SC2086
        held_check "$w" $step5
    done
    # shellcheck disable=SC2086
    run_verdict CUTEC_TIER=1 -- $hopper
    # shellcheck disable=SC2086
    run_verdict CUTEC_TIER=1 -- $step5
    echo "== 2. ptxas alone on the Hopper GEMM's first-tier PTX (wall ms, best of 2), and --emit time"
    ptxas_alone
    : >"$out/emit-time.txt"
    if ! gpu_late emit time; then
        CUTEC_NO_CACHE=1 CUTEC_TIER=1 timeout 20 build/cutec compile gemm --dtype bf16 --arch sm_90a --emit time 2>&1 |
            tee "$out/emit-time.txt" | grep -E "ptxas|driver|first module|spill|arning"
    fi
    echo "== 3. cold compiles each way (cutec bench tiers --ways)"
    : >"$out/bench-ways.txt"
    if ! gpu_late bench tiers; then
        timeout 60 stdbuf -oL -eL build/cutec bench tiers --rounds 5 --size 4096 --no-many \
            --ways ptxas,spawn,thp,loaddata,nvjitlink 2>&1 | tee "$out/bench-ways.txt"
    fi
    [ "$gpu" = 1 ] && decide
    device_end
} 2>&1 | tee "$log"
