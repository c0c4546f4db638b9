#!/usr/bin/env bash
# suite_emit_proof.sh — prove every plan memplan makes on the host and on
# an emulated Cortex-M55 (issue 5, "The proof"), and that every module of a
# model memplan can run gives TensorFlow Lite Micro's answers (issue 8).
#
#  1. tests/emit/proof_gen.c writes a module per model x planner x config
#     (see its header; $JOBS models at a time) with its probe glue, the golden glue and golden data
#     of every corpus model whose operators all have kernels, and build.mk;
#     the golden models must be every model of ../shared/golden but the
#     expected refusals (tests/expected_refusals.txt), which must be
#     refused as listed (the stateful ones, SVDF and LSTM, run their cases
#     in sequence, their variables started as TFLM starts them);
#  2. one make builds, on both cores: one host binary with every module,
#     gcc -Wall -Wextra -Werror with ASan + UBSan, running every probe; the
#     module sources of the first planner's plans (the others differ only
#     in table values) also with clang (ASan + UBSan) and for -mcpu=
#     cortex-m4 (the arenas of the fixtures' and random DAGs' modules: a
#     corpus model's are its weights in the same form); Cortex-M55 images (tests/target: start-up, semihosting,
#     an547.ld); the golden host binary (ASan + UBSan, -O1) and golden
#     Cortex-M55 images (-O2, hard float) of every golden module — every
#     planner, constants cold, staged and cold with memory.in_place, and
#     converted for module.target cortex-m55 (the same three) — and golden Cortex-M4F images
#     (an386.ld, -O2, hard float) of the first planner's golden modules, with
#     the kernels compiled once
#     per target; and the code-size ELF of each golden model;
#  3. every run on both cores at once: the host probe, the golden host
#     binary (one job per model) and every image on qemu-system-arm -M
#     mps3-an547 or -M mps2-an386 (the golden images with -icount shift=0,
#     so that SysTick counts instructions); reports and exit status come back through
#     semihosting.  Golden: all three cases, on zeroed and on garbage-filled
#     arenas, in sequence (state kept), then case 0 again after
#     reset_state, bit-exact (float32: 1e-5 relative), case 0 checked after
#     every operator, model_init's order and hydrated constants checked by
#     the init hooks, and a wrong kernel must be caught and named;
#  4. every arena symbol in the images has exactly the size the residency
#     report gives, lies in the memory the plan chose and is aligned; a
#     module without allocate_arenas defines no arena symbol; every
#     module's residency report validates (tests/check_residency.py);
#  5. a plan with two live tensors forced onto the same bytes, and an
#     in-place plan with an output moved closer to its input than its
#     kernel allows, emitted without the verifier, must fail their probes
#     naming the op and tensor (the probe replays an in-place kernel's read
#     and write order whenever an output shares bytes with its input);
#  6. `memplan convert` writes a module that builds on its own with its
#     module.mk and its CMakeLists.txt, with the reference kernels, and
#     runs; the stateful models' modules, linked from module.mk's static
#     library, run their three cases in sequence and case 0 after
#     reset_state; so does the signal_stream fixture's (the Signal
#     library's streaming operators), checked call by call; a model
#     memplan cannot run (the custom_ops fixture) fails
#     convert listing every unsupported operator, and with
#     --allow-unsupported its module runs up to the first of them and
#     returns the unsupported-operator status;
#  7. the kernels report (tests/emit/golden_report.py): code size, arena
#     sizes and instructions per inference of every golden model, written
#     to $EMIT_PROOF_REPORT when set (docs/kernels_md.sh writes
#     docs/KERNELS.md so).
# Skips the corpus (with a NOTICE) when ../shared/models ($MEMPLAN_MODELS)
# is absent; the target part (with a NOTICE) when the cross toolchain or
# QEMU is missing.  Builds and runs with $JOBS jobs (2).  Every step prints
# its elapsed time and the CPU time so far.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${MODE:-asan}
BUILD=$ROOT/build/$MODE
JOBS=${JOBS:-2}
start=$(date +%s)
# stamp WHAT: the seconds since the start and the CPU seconds of every
# step so far (user + system of what the script waited for; `times` into a
# file, not a pipe, whose subshell would have no children)
stamp() {
  times > "$OUT/times.txt"
  echo "[$(( $(date +%s) - start ))s, cpu $(awk 'NR == 2 { for (i = 1; i <= NF; i++) {
    split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t + 0.5 }' "$OUT/times.txt")s] $*"
}

for f in "$BUILD/libmemplan.a" "$BUILD/libmemplan_gen.a" "$BUILD/tests/support/testutil.o" \
         "$BUILD/memplan" "$BUILD/mkmodel"; do
  [ -f "$f" ] || { echo "missing $f: run 'make MODE=$MODE tests' first"; exit 1; }
done
# a folder of its own (runs may overlap in a shared tree), removed when
# the proof holds (unless EMIT_PROOF_KEEP=1), kept for a look when it does not
OUT=$(mktemp -d "$BUILD/emit-proof.XXXXXX")
trap 'status=$?; if [ $status = 0 ] && [ -z "${EMIT_PROOF_KEEP:-}" ]; then rm -rf "$OUT"; else echo "emit proof artifacts: $OUT"; fi' EXIT
mkdir -p "$OUT"/support "$OUT"/broken

WARN="-Wall -Wextra -Werror"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
GEN_SAN=""
[ "$MODE" = asan ] && GEN_SAN="-fsanitize=address,undefined"
PKG_LIBS=$(pkg-config --libs yaml-0.1 jansson 2>/dev/null || echo -lyaml -ljansson)
# testutil.o's tu_written fails through cmocka, as the test programs do
PKG_LIBS="$PKG_LIBS -lcmocka"

# ---- 1. the modules ---------------------------------------------------------
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $WARN -O1 -g $GEN_SAN \
   -Iinclude -Isrc -Iruntime/kernels -Itests/support -Itests/support/gen -Itests/emit \
   tests/emit/proof_gen.c "$BUILD/tests/support/testutil.o" "$BUILD/libmemplan_gen.a" \
   "$BUILD/libmemplan.a" $PKG_LIBS -lm -o "$OUT/proof_gen"
MODELS=${MEMPLAN_MODELS:-../shared/models}
GOLDEN=${MEMPLAN_GOLDEN:-../shared/golden}
[ -d "$MODELS" ] || echo "NOTICE: $MODELS is absent; the proof runs on the fixtures and the example only"
[ -d "$GOLDEN" ] || echo "NOTICE: $GOLDEN is absent; no module runs against TFLM's outputs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
# EMIT_PROOF_FILTER (a regex on the model names: fx_<fixture>, the corpus
# names, kws_example, fx_random60 and fx_random240) proves those models only
FILTER_ARGS=()
if [ -n "${EMIT_PROOF_FILTER:-}" ]; then
  FILTER_ARGS=(--filter "$EMIT_PROOF_FILTER")
  echo "NOTICE: EMIT_PROOF_FILTER is set: only the models matching '$EMIT_PROOF_FILTER' are proven"
fi
gen_rc=0
"$OUT/proof_gen" "$OUT" --models "$MODELS" --golden "$GOLDEN" --example examples/kws/kws.tflite \
  --jobs "$JOBS" "${FILTER_ARGS[@]}" > "$OUT/gen.log" 2>&1 || gen_rc=$?
grep -E '^(NOTICE|FAIL|skip|proof_gen|golden|patch|speed|refused)' "$OUT/gen.log"
# judged by its exit status too: a sanitizer report at exit is a failure
# however the result lines read
[ "$gen_rc" = 0 ] || { tail -n 30 "$OUT/gen.log"; echo "FAIL: module generation exited $gen_rc"; exit 1; }
grep -q '^proof_gen: .* 0 failures' "$OUT/gen.log" || { echo "FAIL: module generation"; exit 1; }
n_modules=$(wc -l < "$OUT/manifest.txt")
n_golden=$(wc -l < "$OUT/golden.txt")
n_planners=$(sed -n 's/^proof_gen: .*, \([0-9]*\) planners,.*/\1/p' "$OUT/gen.log")
# every model with golden data runs against it, every planner, constants
# cold, staged and cold with memory.in_place, and converted for
# module.target cortex-m55 (first planner, cold, staged and in place, and
# in place with memory.in_place speed where size runs depthwise
# convolutions channel by channel),
# but the expected refusals (tests/expected_refusals.txt; proof_gen checks
# that memplan refuses them as listed)
. tests/support/refusals.sh
if [ -d "$MODELS" ] && [ -d "$GOLDEN" ] && [ -z "${EMIT_PROOF_FILTER:-}" ]; then
  want=$(for d in "$GOLDEN"/*/; do m=$(basename "$d"); [ -f "$MODELS/$m.tflite" ] || continue
           [ -z "$(refusal_of "$m")" ] || continue
           extra=$(grep -c "^\(patch\|speed\) $m: " "$OUT/gen.log" || true)
           echo "$m: $((3 * n_planners + 3 + extra)) modules"; done)
  got=$(sed -n 's/^golden \(.*\)$/\1/p' "$OUT/gen.log" | sort)
  [ "$want" = "$got" ] || { printf 'FAIL: golden models\nwant:\n%s\ngot:\n%s\n' "$want" "$got"; exit 1; }
fi
n_gmodels=$(cut -d' ' -f3 "$OUT/golden.txt" | sort -u | wc -l)
stamp "generated $n_modules modules; $n_golden of them ($n_gmodels models x ($n_planners planners x cold/staged/in place + target cortex-m55 x cold/staged/in place, and in place speed where size runs channel-serial kernels)) also run with their kernels against TFLM"

# ---- 2. build ---------------------------------------------------------------
# The probe builds favour compile speed (-O0 host, -O1 target: the probe is
# about memory, not speed); the warnings that need the optimiser are the
# clang (-O1) and Cortex-M4 (-O2) checks'.  The golden builds are what a
# firmware engineer would ship: -O2 hard float on the M55 (the code sizes
# and instruction counts of the report), -O1 on the host.  A golden
# module's arenas (the weights, most of the bytes to compile) are compiled
# once per core, the host's with the probe's flags and the M55's with the
# golden ones, and linked into both binaries: so the probe images are hard
# float too.
HOST_CFLAGS="-std=c99 $WARN -O0 -g $SAN"
GOLDEN_HOST_CFLAGS="-std=c99 $WARN -O1 -g $SAN"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/probe.c -o "$OUT/support/probe.o"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/host_main.c -o "$OUT/support/host_main.o"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/golden.c -o "$OUT/support/golden.o"
have_arm=1
for tool in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-size qemu-system-arm; do
  command -v $tool >/dev/null || have_arm=0
done
M55_CFLAGS="-std=c99 $WARN -O1 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -DPROBE_TARGET"
GOLDEN_M55_CFLAGS="-std=c99 $WARN -O2 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections \
  -fdata-sections"
M4_CFLAGS="-std=c99 $WARN -O2 -mcpu=cortex-m4 -mthumb"
M4F_FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
GOLDEN_M4F_CFLAGS="-std=c99 $WARN -O2 $M4F_FLAGS -ffunction-sections -fdata-sections"
GOLDEN_M4F_LDFLAGS="$M4F_FLAGS -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T tests/target/an386.ld -Wl,--no-warn-rwx-segments -Wl,-u,_printf_float"
M55_LDFLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T tests/target/an547.ld -Wl,--no-warn-rwx-segments"
GOLDEN_M55_LDFLAGS="$M55_LDFLAGS -Wl,-u,_printf_float" # floats in reports
SIZE_LDFLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -nostartfiles --specs=nano.specs \
  --specs=nosys.specs -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,-Map=\$@.map"
MAKEVARS=(-f "$OUT/build.mk" -j"$JOBS" PROBE_DIR="$ROOT/tests/emit"
  HOST_CC=cc HOST_CFLAGS="$HOST_CFLAGS" HOST_LDFLAGS="$SAN" GOLDEN_HOST_CFLAGS="$GOLDEN_HOST_CFLAGS"
  HOST_SUPPORT="$OUT/support/probe.o $OUT/support/golden.o $OUT/support/host_main.o"
  CLANG_CC=clang CLANG_CFLAGS="-std=c99 $WARN -O1 -fsanitize=address,undefined"
  ARM_CC=arm-none-eabi-gcc M4_CFLAGS="$M4_CFLAGS" M55_CFLAGS="$M55_CFLAGS"
  M55_LDFLAGS="$M55_LDFLAGS" M55_LIBS="-lc -lnosys"
  M55_SUPPORT="$OUT/support/startup.o $OUT/support/semihost.o $OUT/support/target_main.o \
    $OUT/support/probe_m55.o $OUT/support/golden_m55.o"
  GOLDEN_M55_CFLAGS="$GOLDEN_M55_CFLAGS" GOLDEN_M55_LDFLAGS="$GOLDEN_M55_LDFLAGS"
  GOLDEN_M55_SUPPORT="$OUT/support/startup_g.o $OUT/support/semihost_g.o \
    $OUT/support/target_main_g.o $OUT/support/probe_g.o $OUT/support/golden_g.o"
  GOLDEN_M4F_CFLAGS="$GOLDEN_M4F_CFLAGS" GOLDEN_M4F_LDFLAGS="$GOLDEN_M4F_LDFLAGS"
  GOLDEN_M4F_SUPPORT="$OUT/support/startup_4f.o $OUT/support/semihost_4f.o \
    $OUT/support/target_main_4f.o $OUT/support/probe_4f.o $OUT/support/golden_4f.o"
  SIZE_LDFLAGS="$SIZE_LDFLAGS" SIZE_LIBS="-lm -lc")
have_clang=1
command -v clang >/dev/null || { have_clang=0; echo "NOTICE: clang is absent; clang compile check skipped"; }
images=$(sed -n 's/^IMAGES := //p' "$OUT/build.mk")
gimages=$(for k in $(cut -d' ' -f2 "$OUT/golden.txt" | sort -u); do echo "$OUT/m55/$k.elf"; done)
m4fimages=$(for k in $(cut -d' ' -f2 "$OUT/golden_m4f.txt" | sort -u); do echo "$OUT/m4f/$k.elf"; done)
n_golden_m4f=$(wc -l < "$OUT/golden_m4f.txt")
targets="$OUT/host/proof $OUT/host/golden"
[ $have_clang = 1 ] && targets="$targets clang-check"
if [ $have_arm = 1 ]; then
  for f in startup semihost target_main; do
    arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -Itests/target -c tests/target/$f.c -o "$OUT/support/$f.o"
    arm-none-eabi-gcc $GOLDEN_M55_CFLAGS -Itests/emit -Itests/target -c tests/target/$f.c -o "$OUT/support/${f}_g.o"
    arm-none-eabi-gcc $GOLDEN_M4F_CFLAGS -Itests/emit -Itests/target -c tests/target/$f.c -o "$OUT/support/${f}_4f.o"
  done
  for f in probe golden; do
    arm-none-eabi-gcc $GOLDEN_M4F_CFLAGS -Itests/emit -c tests/emit/$f.c -o "$OUT/support/${f}_4f.o"
  done
  arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -c tests/emit/probe.c -o "$OUT/support/probe_m55.o"
  arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -c tests/emit/golden.c -o "$OUT/support/golden_m55.o"
  arm-none-eabi-gcc $GOLDEN_M55_CFLAGS -Itests/emit -c tests/emit/probe.c -o "$OUT/support/probe_g.o"
  arm-none-eabi-gcc $GOLDEN_M55_CFLAGS -Itests/emit -c tests/emit/golden.c -o "$OUT/support/golden_g.o"
  targets="$targets m4-check $images $gimages $m4fimages sizes"
else
  echo "NOTICE: arm-none-eabi-gcc, arm-none-eabi-size or qemu-system-arm is absent: target proof skipped"
  gimages=""
  m4fimages=""
fi
# one make for everything, so that both cores stay busy
make -s "${MAKEVARS[@]}" $targets
stamp "built: host binaries (gcc, ASan+UBSan)$( [ $have_clang = 1 ] && echo ", clang check")$( [ $have_arm = 1 ] && echo ", Cortex-M4 check, $(echo $images | wc -w) probe and $(echo $gimages | wc -w) golden Cortex-M55 images, $(echo $m4fimages | wc -w) golden Cortex-M4F images, $n_gmodels code-size ELFs")"

# ---- 3. every run, both cores busy ------------------------------------------
# job: KIND ARG LOG; the log ends with "exit <status>"
run_job() {
  local kind=$1 arg=$2 log=$3 rc=0
  case $kind in
    proof) "$arg" > "$log" 2>&1 || rc=$? ;;
    golden) "$OUT/host/golden" "$arg" > "$log" 2>&1 || rc=$? ;;
    qemu) timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$arg" \
            > "$log" 2>&1 || rc=$? ;;
    qemu-icount) timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting \
            -icount shift=0 -kernel "$arg" > "$log" 2>&1 || rc=$? ;;
    qemu-m4f) timeout 300 qemu-system-arm -M mps2-an386 -nographic -semihosting \
            -icount shift=0 -kernel "$arg" > "$log" 2>&1 || rc=$? ;;
  esac
  echo "exit $rc" >> "$log"
}
export -f run_job
export OUT
mkdir -p "$OUT/golden_host"
{
  # the longest first
  for e in $gimages; do echo "qemu-icount $e ${e%.elf}.log"; done
  for e in $m4fimages; do echo "qemu-m4f $e ${e%.elf}.log"; done
  for m in $(cut -d' ' -f3 "$OUT/golden.txt" | sort -u); do echo "golden $m $OUT/golden_host/$m.log"; done
  echo "proof $OUT/host/proof $OUT/host.log"
  [ $have_arm = 1 ] && for e in $images; do echo "qemu $e ${e%.elf}.log"; done
} > "$OUT/jobs.txt"
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt"
stamp "ran $(wc -l < "$OUT/jobs.txt") jobs"

# the probes
if ! grep -q '^exit 0$' "$OUT/host.log" || ! grep -q "^host: $n_modules modules, 0 failed" "$OUT/host.log"; then
  grep -v '^PASS' "$OUT/host.log" | head -40; echo "FAIL: host proof"; exit 1
fi
stamp "host: $n_modules modules, every probe passed"
if [ $have_arm = 1 ]; then
  bad=0
  for elf in $images; do
    log=${elf%.elf}.log
    if ! grep -q '^exit 0$' "$log" || ! grep -q '^target: .* 0 failed' "$log"; then
      bad=1; echo "FAIL: $(basename "$elf")"; grep -v '^PASS' "$log" | head -20
    fi
  done
  [ $bad = 0 ] || exit 1
  passed=$(cat $(for e in $images; do echo "${e%.elf}.log"; done) | grep -c '^PASS' || true)
  [ "$passed" = "$n_modules" ] || { echo "FAIL: $passed of $n_modules modules passed on the target"; exit 1; }
  stamp "qemu mps3-an547: $passed modules in $(echo $images | wc -w) images, every probe passed"
fi

# the golden runs: every module passes, every model's wrong kernel is
# caught at the op it broke, on the host and on the target
check_golden() { # WHERE N_MODULES LOG...
  local where=$1 n_want=$2; shift 2
  local pass caught named
  if grep -q '^GOLDEN FAIL' "$@" || grep -L '^exit 0$' "$@" | grep -q .; then
    grep -h -v -E '^GOLDEN (PASS|CAUGHT|COUNT|CALIB)' "$@" | head -40; echo "FAIL: golden runs ($where)"; exit 1
  fi
  pass=$(cat "$@" | grep -c '^GOLDEN PASS' || true)
  caught=$(cat "$@" | grep -c '^GOLDEN CAUGHT .* changing byte' || true)
  uninit=$(cat "$@" | grep -c '^GOLDEN CAUGHT .* reads its output before writing it' || true)
  named=$(cat "$@" | grep -c -E '^GOLDEN CAUGHT .* at op ([0-9]+) \([A-Z_0-9]+\) .* reported (on garbage arenas )?as: first difference at op \1 \(' || true)
  [ "$pass" = "$n_want" ] || { echo "FAIL: $pass of $n_want golden modules passed ($where)"; exit 1; }
  [ "$caught" = "$n_gmodels" ] && [ "$uninit" = "$n_gmodels" ] && [ "$named" = $((2 * n_gmodels)) ] ||
    { echo "FAIL: $named of $((2 * n_gmodels)) planted kernels (wrong output: $caught, reading uninitialised output: $uninit of $n_gmodels) named at their op ($where)"; exit 1; }
}
if [ "$n_golden" -gt 0 ]; then
  check_golden host "$n_golden" "$OUT"/golden_host/*.log
  # awk, not grep | head: head leaving early would fail the pipeline (pipefail)
  awk '/^GOLDEN CAUGHT/ && !n++ { print "  " substr($0, 1, 158) }' "$OUT"/golden_host/*.log
  awk '/^GOLDEN CAUGHT .* reads its output/ && !n++ { print "  " substr($0, 1, 198) }' "$OUT"/golden_host/*.log
  stamp "host: $n_golden modules with their kernels give TFLM's outputs; $n_gmodels wrong kernels and $n_gmodels uninitialised reads caught and named"
  if [ $have_arm = 1 ]; then
    check_golden "qemu mps3-an547" "$n_golden" $(for e in $gimages; do echo "${e%.elf}.log"; done)
    stamp "qemu mps3-an547: $n_golden modules in $(echo $gimages | wc -w) images give TFLM's outputs; $n_gmodels wrong kernels and $n_gmodels uninitialised reads caught and named"
    check_golden "qemu mps2-an386" "$n_golden_m4f" $(for e in $m4fimages; do echo "${e%.elf}.log"; done)
    stamp "qemu mps2-an386 (Cortex-M4F): $n_golden_m4f modules (first planner; generic and cortex-m55, whose kernels take their DSP paths) in $(echo $m4fimages | wc -w) images give TFLM's outputs; $n_gmodels wrong kernels and $n_gmodels uninitialised reads caught and named"
  fi
fi

# ---- 4. symbols against the residency report ------------------------------
if [ $have_arm = 1 ]; then
  python3 - "$OUT" <<'PY'
import json, os, subprocess, sys
out = sys.argv[1]
ranges = {"dtcm": (0x30000000, 0x30080000), "sram": (0x31000000, 0x31400000),
          "mram": (0x38000000, 0x38800000)}
where = {"dtcm": "dtcm", "mram": "mram"}
images = {}
for name in ("manifest.txt", "golden.txt"):  # probe and golden images
    for line in open(os.path.join(out, name)):
        prefix, img = line.split()[:2]
        images.setdefault(img, []).append(prefix)
checked = 0
for img, prefixes in sorted(images.items()):
    nm = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", os.path.join(out, "m55", img + ".elf")],
                        capture_output=True, text=True, check=True).stdout
    syms = {}
    for l in nm.splitlines():
        f = l.split()
        if len(f) == 4: syms[f[3]] = (int(f[0], 16), int(f[1], 16))
    for p in prefixes:
        rep = json.load(open(os.path.join(out, "modules", p, p + "_residency.json")))
        bound = not os.path.exists(os.path.join(out, "modules", p, "src", p + "_arenas.c"))
        for a in rep["arenas"]:
            pairs = [(a["symbol"], a["memory"])]
            if a.get("staged"): pairs.append((a["source_symbol"], a["source_memory"]))
            for sym, mem in pairs:
                if bound:
                    if sym in syms: sys.exit(f"FAIL {p}: {sym} defined without allocate_arenas")
                    continue
                if sym not in syms: sys.exit(f"FAIL {p}: {sym} missing from {img}.elf")
                addr, size = syms[sym]
                if size != a["size"]: sys.exit(f"FAIL {p}: {sym} is {size} bytes, the report says {a['size']}")
                if addr % a["alignment"]: sys.exit(f"FAIL {p}: {sym} at {addr:#x} not aligned to {a['alignment']}")
                lo, hi = ranges[where.get(mem, "sram")]
                if not lo <= addr < hi: sys.exit(f"FAIL {p}: {sym} at {addr:#x} is not in {mem}")
                checked += 1
print(f"symbols: {checked} arena symbols match the residency reports (size, alignment, memory)")
PY
  stamp "arena symbols checked"
  arm-none-eabi-size $images $gimages | sort -k4 -n | tail -n 3 | sed 's/^/  /'
fi

# every module's residency report follows docs/residency.schema.json
python3 tests/check_residency.py --models "$MODELS" examples/kws -- \
  "$OUT"/modules/*/*_residency.json > "$OUT/residency.log" \
  || { grep -A5 '^FAIL' "$OUT/residency.log" | head -n 40; exit 1; }
stamp "$(tail -n 1 "$OUT/residency.log")"

# ---- 5. a broken plan must fail ---------------------------------------------
"$OUT/proof_gen" "$OUT/broken" --broken --example examples/kws/kws.tflite | tee "$OUT/broken/gen.log" | grep '^broken'
make -s -f "$OUT/broken/build.mk" -j"$JOBS" "${MAKEVARS[@]:2}" "$OUT/broken/host/proof"
if "$OUT/broken/host/proof" > "$OUT/broken/host.log" 2>&1; then
  echo "FAIL: the probe passed a plan with two live tensors on the same bytes"; exit 1
fi
grep '^FAIL' "$OUT/broken/host.log"
grep -Eq "^FAIL [a-z0-9_]*_cold_broken .*: op [0-9]+ \([A-Z_0-9]+\): .* tensor [0-9]+ '[^']*' .* it holds the pattern of tensor [0-9]+" \
  "$OUT/broken/host.log" || { echo "FAIL: the broken plan's failure does not name the op and tensor"; exit 1; }
grep -Eq "^FAIL [a-z0-9_]*_inplace_broken .*: op [0-9]+ \([A-Z_0-9]+\): input tensor [0-9]+ '[^']*' byte [0-9]+ .* when the kernel reads it.* it holds the pattern of tensor [0-9]+" \
  "$OUT/broken/host.log" || { echo "FAIL: the broken in-place plan's failure does not name the op and tensor"; exit 1; }
if [ $have_arm = 1 ]; then
  make -s -f "$OUT/broken/build.mk" "${MAKEVARS[@]:2}" $(sed -n 's/^IMAGES := //p' "$OUT/broken/build.mk")
  rc=0
  timeout 120 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$OUT/broken/m55/img0.elf" \
    > "$OUT/broken/m55.log" 2>&1 || rc=$?
  [ $rc != 0 ] && grep -q "^FAIL .*_cold_broken .*: op [0-9]* (.*tensor" "$OUT/broken/m55.log" \
    && grep -q "^FAIL .*_inplace_broken .*: op [0-9]* (.*when the kernel reads it" "$OUT/broken/m55.log" \
    || { echo "FAIL: the broken plan passed on the target"; cat "$OUT/broken/m55.log"; exit 1; }
fi
stamp "a broken plan and a broken in-place plan fail their probes, naming the op and tensor"

# ---- 6. memplan convert: a module that builds on its own ----------------------
CONV=$OUT/convert
"$BUILD/memplan" convert --path examples/kws/config.yaml --module.path "$CONV" --verbose 0
test -f "$CONV/kws_residency.json" || { echo "FAIL: convert wrote no residency report"; exit 1; }
APP=tests/emit/convert_app.c
make -s -f "$CONV/module.mk" CC=cc CFLAGS="$WARN -O2 $SAN" KWS_MODULE_BUILD="$OUT/convert_mk"
cc -std=c99 $WARN $SAN -I"$CONV/include" $APP "$OUT/convert_mk/libkws_nn.a" -lm -o "$OUT/convert_app"
"$OUT/convert_app"
make -s -f "$CONV/module.mk" CC=cc CFLAGS="$WARN -O2 $SAN" KWS_MODULE_KERNELS=0 \
  KWS_MODULE_BUILD="$OUT/convert_nokernels"
cc -std=c99 $WARN $SAN -I"$CONV/include" $APP "$OUT/convert_nokernels/libkws_nn.a" -o "$OUT/convert_app_nok"
"$OUT/convert_app_nok" none
if [ $have_arm = 1 ]; then
  make -s -f "$CONV/module.mk" CC=arm-none-eabi-gcc CFLAGS="$WARN -O2 -mcpu=cortex-m55 -mthumb" \
    KWS_MODULE_BUILD="$OUT/convert_m55"
fi
if command -v cmake >/dev/null; then
  cmake -S "$CONV" -B "$OUT/convert_cmake" -DCMAKE_C_FLAGS="$WARN" >/dev/null
  cmake --build "$OUT/convert_cmake" -j"$JOBS" >/dev/null
  cc -std=c99 $WARN -I"$CONV/include" $APP "$OUT/convert_cmake/libkws_nn.a" -lm -o "$OUT/convert_app_cmake"
  "$OUT/convert_app_cmake"
else
  echo "NOTICE: cmake is absent; the CMakeLists.txt build is not checked"
fi
stamp "memplan convert: the module builds with module.mk and CMake and runs with its kernels"

# the stateful models, as an application builds them: convert, module.mk's
# static library, the three cases in sequence and case 0 again after
# reset_state (an archive links only the kernel files something asks for)
if [ -d "$MODELS" ] && [ -d "$GOLDEN" ]; then
  for m in tflm_keyword_scrambled_int8 tflm_mnist_lstm_int8 tflm_audio_preprocessor_float; do
    [ -f "$MODELS/$m.tflite" ] || { echo "FAIL: $m is missing from $MODELS"; exit 1; }
    sd=$OUT/stream/$m
    mkdir -p "$sd"
    "$BUILD/memplan" convert --model.path "$MODELS/$m.tflite" --module.path "$sd/module" \
      --module.prefix st --verbose 0 > "$sd.log" 2>&1 || { cat "$sd.log"; exit 1; }
    make -s -f "$sd/module/module.mk" CC=cc CFLAGS="$WARN -O1 $SAN" ST_MODULE_BUILD="$sd/build"
    cc -std=c99 $WARN $SAN -I"$sd/module/include" tests/emit/stream_app.c "$sd/build/libst.a" -lm \
      -o "$sd/app"
    g=$GOLDEN/$m
    "$sd/app" "$g/case0.input0.bin" "$g/case0.output0.bin" "$g/case1.input0.bin" \
      "$g/case1.output0.bin" "$g/case2.input0.bin" "$g/case2.output0.bin" ||
      { echo "FAIL: $m's module built from module.mk"; exit 1; }
  done
  stamp "the stateful models' modules, built from module.mk, run their cases in sequence"
fi

# the Signal library's streaming operators (mkmodel fixture signal_stream):
# convert, the module's sources and its one kernel file under ASan +
# UBSan (the archive build is proven above), twelve calls, reset_state,
# twelve calls, each output checked against the streaming property TFLM's
# kernels have (tests/emit/signal_stream_app.c)
ss=$OUT/stream/signal_stream
mkdir -p "$ss"
"$BUILD/mkmodel" fixture signal_stream "$ss/signal_stream.tflite"
"$BUILD/memplan" convert "$ss/signal_stream.tflite" --module.path "$ss/module" --module.prefix ss \
  --verbose 0 > "$ss.log" 2>&1 || { cat "$ss.log"; exit 1; }
cc -std=c99 $WARN -O1 $SAN -DSS_WITH_KERNELS=1 -I"$ss/module/include" -I"$ss/module/kernels" \
  tests/emit/signal_stream_app.c "$ss"/module/src/*.c "$ss/module/kernels/mpk_signal.c" -lm \
  -o "$ss/app"
"$ss/app" || { echo "FAIL: signal_stream's module"; exit 1; }
stamp "the Signal streaming operators' module keeps and resets its state as TFLM does"

# a model memplan has no kernels for (two custom operators after an ADD):
# convert fails listing every such operator and writes nothing; with
# --allow-unsupported the module runs its supported operators and stops at
# the first unsupported one
cat > "$OUT/unsupported_app.c" <<'C'
#include "rj_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  rj_model_context_t ctx = RJ_MODEL_CONTEXT_INIT;
  int32_t st = rj_model_init(&ctx);
  if (st != RJ_STATUS_OK || argc < 2) return 2;
  for (size_t i = 0; i < RJ_NUM_INPUTS; i++) memset(ctx.inputs[i].data, 1, ctx.inputs[i].size);
  st = rj_model_run(&ctx);
  printf("  run: %s at op %d (%s)\n", rj_status_str(st), (int)ctx.failed_op,
         ctx.failed_op >= 0 ? rj_ops[ctx.failed_op].name : "-");
  return st == RJ_STATUS_UNSUPPORTED_OP && ctx.failed_op == atoi(argv[1]) ? 0 : 1;
}
C
for m in custom_ops; do
  rj=$OUT/rejected/$m
  mkdir -p "$rj"
  "$BUILD/mkmodel" fixture "$m" "$rj/$m.tflite"
  rc=0
  "$BUILD/memplan" convert "$rj/$m.tflite" --module.path "$rj/module" --module.prefix rj \
    --verbose 0 > "$rj/convert.log" 2>&1 || rc=$?
  ops=$(sed -n 's/.*error: operator \([0-9]*\) (\([A-Z_]*\)) is not supported: memplan has no kernel for \2; reads .*; writes .*/\1/p' "$rj/convert.log")
  n_ops=$(echo $ops | wc -w)
  if [ $rc = 0 ] || [ -e "$rj/module" ] || [ "$n_ops" = 0 ] ||
     ! grep -q "error: $n_ops of [0-9]* operators are not supported" "$rj/convert.log"; then
    cat "$rj/convert.log"; echo "FAIL: convert of $m (status $rc) must fail listing every unsupported operator"; exit 1
  fi
  "$BUILD/memplan" convert "$rj/$m.tflite" --module.path "$rj/module" --module.prefix rj \
    --allow-unsupported --verbose 0 > "$rj/allow.log" 2>&1 || { cat "$rj/allow.log"; exit 1; }
  make -s -f "$rj/module/module.mk" CC=cc CFLAGS="$WARN -O1 $SAN" RJ_MODULE_BUILD="$rj/build"
  cc -std=c99 $WARN $SAN -I"$rj/module/include" "$OUT/unsupported_app.c" "$rj/build/librj.a" -lm \
    -o "$rj/app"
  first=$(echo $ops | cut -d' ' -f1)
  echo "$m: convert fails listing $n_ops unsupported operators (ops $(echo $ops | tr ' ' ','))"
  "$rj/app" "$first" || { echo "FAIL: $m's module with --allow-unsupported must stop at op $first"; exit 1; }
done
stamp "memplan convert rejects a model it cannot run; with --allow-unsupported it stops at the first unsupported operator"

# ---- 7. the kernels report ------------------------------------------------------
if [ $have_arm = 1 ] && [ "$n_golden" -gt 0 ]; then
  python3 tests/emit/golden_report.py "$OUT" "$GOLDEN_M55_CFLAGS" > "$OUT/KERNELS.md"
  sed -n '/^| model /,/^$/p' "$OUT/KERNELS.md" | sed 's/^/  /'
  if [ -n "${EMIT_PROOF_REPORT:-}" ]; then cp "$OUT/KERNELS.md" "$EMIT_PROOF_REPORT"; echo "wrote $EMIT_PROOF_REPORT"; fi
  stamp "kernels report: code size, arenas and instructions per inference of $n_gmodels models"
fi
echo "emit proof: $n_modules modules proven on the host$( [ $have_arm = 1 ] && echo " and on qemu mps3-an547" ) in $(( $(date +%s) - start ))s"
