#!/usr/bin/env bash
# suite_conformance.sh — every case of the conformance corpus
# (../shared/conformance, $MEMPLAN_CONFORMANCE: single-operator models and
# small graphs with TensorFlow Lite Micro's outputs) whose operators memplan
# supports runs through `memplan convert` and the emitted module, on the
# host (ASan + UBSan) and on the emulated Cortex-M55 (qemu mps3-an547), on
# arenas pre-filled with garbage.  Integer outputs must equal TFLM's bit
# for bit; float32 outputs within 1e-6 + 1e-5 * |TFLM| (conform.h).
#
#  1. tests/conformance/conform_gen.py converts every case; memplan alone
#     decides what it supports, so a new kernel's cases run as soon as
#     convert accepts them.  A case convert refuses ("operator N (OP) is not
#     supported: why") must be listed in tests/expected_refusals.txt with a
#     reason that begins "OP: why"; a listed case that converts fails as
#     stale (in a filtered run too); any other convert failure (a crash, a
#     sanitizer report) fails the suite;
#     each case convert accepts is converted once more with
#     --module.target cortex-m55 ($CONFORMANCE_TARGET) for the target runs,
#     the kernels a firmware engineer gets for that core (Helium paths);
#  2. one make, on both cores: one host binary with every case's default
#     (generic) module (gcc -Wall -Wextra -Werror, ASan + UBSan; kernels
#     -O1), Cortex-M55 images of the cortex-m55 modules (-O2, hard float,
#     MVE; kernels compiled once), the cases packed by arena size, and
#     Cortex-M4F images (-O2, hard float, DSP; qemu mps2-an386) of those
#     cortex-m55 modules that call a specialised kernel, so that its DSP
#     paths run too; the modules are the sources convert wrote, unchanged;
#  3. the host binary and every image on qemu-system-arm, both cores busy;
#     the runs read the corpus files (the target through semihosting); a
#     run that does not exit 0 (a crash, a sanitizer report at exit, an
#     emulator cut short by its timeout) fails the suite;
#     a stateful case (the manifest's "stateful", "runs") runs its invocations
#     in order on one context, then reset_state and invocation 0 again;
#  4. the table: per (operator, dtype) the cases, how many ran, matched on
#     the host, on the M55 and on the M4F, and were refused as listed; then
#     every listed case with its verdict, and every failure.
# CONFORMANCE_FILTER (a regular expression on the case folder, e.g.
# '^mean_int8/') runs a part of the corpus; CONFORMANCE_CONVERT_ARGS adds
# convert options to every case.  CONFORMANCE_VARIANTS instead runs
# several selections at once, one per line "NAME FILTER [CONVERT
# OPTIONS...]" (FILTER without blanks, "." for every case): each case of a
# variant is converted with its options, all of them are built into the
# same host binary and images, and each variant is judged on its own, with
# its table, its expected refusals and a last line "conformance NAME: ..."
# (tests/suite_rewrite.sh runs the multi-operator cases so: in place,
# patched, and in two operator orders).  Skips with a NOTICE when the
# corpus is absent; the target part with a NOTICE when the cross toolchain
# or QEMU is missing.  Every step prints its elapsed time and the CPU time
# so far.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${MODE:-asan}
BUILD=$ROOT/build/$MODE
JOBS=${JOBS:-2}
CORPUS=${MEMPLAN_CONFORMANCE:-../shared/conformance}
start=$(date +%s)
# stamp WHAT: the seconds since the start and the CPU seconds of every
# step so far (user + system of what the script waited for; `times` into a
# file, not a pipe, whose subshell would have no children)
stamp() {
  times > "$OUT/times.txt"
  echo "[$(( $(date +%s) - start ))s, cpu $(awk 'NR == 2 { for (i = 1; i <= NF; i++) {
    split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t + 0.5 }' "$OUT/times.txt")s] $*"
}

if [ ! -f "$CORPUS/manifest.json" ]; then
  echo "NOTICE: $CORPUS is absent; the conformance suite is skipped"
  exit 0
fi
[ -x "$BUILD/memplan" ] || { echo "missing $BUILD/memplan: run 'make MODE=$MODE tests' first"; exit 1; }
OUT=$(mktemp -d "$BUILD/conformance.XXXXXX")
trap 'status=$?; if [ $status = 0 ] && [ -z "${CONFORMANCE_KEEP:-}" ]; then rm -rf "$OUT"; else echo "conformance artifacts: $OUT"; fi' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

have_arm=1
for tool in arm-none-eabi-gcc qemu-system-arm; do command -v $tool >/dev/null || have_arm=0; done
TARGET=${CONFORMANCE_TARGET:-cortex-m55}
[ $have_arm = 1 ] || TARGET=generic

# ---- 1. convert every case ---------------------------------------------------
if [ -n "${CONFORMANCE_VARIANTS:-}" ]; then
  if [ -n "${CONFORMANCE_FILTER:-}${CONFORMANCE_CONVERT_ARGS:-}" ]; then
    echo "CONFORMANCE_VARIANTS replaces CONFORMANCE_FILTER and CONFORMANCE_CONVERT_ARGS: set one or the other"
    exit 1
  fi
  SELECT=(--variants "$CONFORMANCE_VARIANTS")
else
  SELECT=(--filter "${CONFORMANCE_FILTER:-}" --convert-args "${CONFORMANCE_CONVERT_ARGS:-}")
fi
python3 tests/conformance/conform_gen.py generate "$OUT" --corpus "$CORPUS" --memplan "$BUILD/memplan" \
  --jobs "$JOBS" "${SELECT[@]}" --target "$TARGET"
stamp "converted (the host's modules for the generic target, the Cortex-M55's for $TARGET)"

# ---- 2. build ------------------------------------------------------------------
WARN="-Wall -Wextra -Werror"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CONF=$ROOT/tests/conformance
HOST_CFLAGS="-std=c99 $WARN -O0 -g $SAN"
cc $HOST_CFLAGS -c "$CONF/conform.c" -o "$OUT/conform.o"
cc $HOST_CFLAGS -c "$CONF/conform_main.c" -o "$OUT/conform_main.o"
M55_CFLAGS="-std=c99 $WARN -O2 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections -fdata-sections"
M55_LDFLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T tests/target/an547.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,-u,_printf_float"
M4F_CFLAGS="-std=c99 $WARN -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -ffunction-sections -fdata-sections"
M4F_LDFLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T tests/target/an386.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,-u,_printf_float"
MAKEVARS=(-f "$OUT/build.mk" -j"$JOBS" CONF_DIR="$CONF" HOST_CC=cc HOST_CFLAGS="$HOST_CFLAGS"
  HOST_KCFLAGS="-std=c99 $WARN -O1 -g $SAN" HOST_LDFLAGS="$SAN"
  HOST_SUPPORT="$OUT/conform.o $OUT/conform_main.o"
  ARM_CC=arm-none-eabi-gcc M55_CFLAGS="$M55_CFLAGS" M55_LDFLAGS="$M55_LDFLAGS" M55_LIBS="-lm -lc -lnosys"
  M55_SUPPORT="$OUT/m55/startup.o $OUT/m55/semihost.o $OUT/m55/conform.o $OUT/m55/conform_main.o"
  M4F_CFLAGS="$M4F_CFLAGS" M4F_LDFLAGS="$M4F_LDFLAGS"
  M4F_SUPPORT="$OUT/m4f/startup.o $OUT/m4f/semihost.o $OUT/m4f/conform.o $OUT/m4f/conform_main.o")
targets=host
if [ $have_arm = 1 ]; then
  # the harness of each core's images
  for core in "m55:$M55_CFLAGS" "m4f:$M4F_CFLAGS"; do
    sub=${core%%:*} flags=${core#*:}
    mkdir -p "$OUT/$sub"
    for f in tests/target/startup.c tests/target/semihost.c "$CONF/conform.c"; do
      arm-none-eabi-gcc $flags -Itests/target -c "$f" -o "$OUT/$sub/$(basename "${f%.c}").o"
    done
    arm-none-eabi-gcc $flags -DCONF_TARGET -Itests/target -c "$CONF/conform_main.c" \
      -o "$OUT/$sub/conform_main.o"
  done
  targets="host images images4"
else
  echo "NOTICE: arm-none-eabi-gcc or qemu-system-arm is absent: the Cortex-M55 runs are skipped"
fi
make -s "${MAKEVARS[@]}" $targets
n_images=$(wc -l < "$OUT/images.txt")
n_images4=$(wc -l < "$OUT/images4.txt")
stamp "built: the host binary$( [ $have_arm = 1 ] && echo ", $n_images Cortex-M55 images and $n_images4 Cortex-M4F images")"

# ---- 3. run, both cores busy ---------------------------------------------------
run_job() {
  local kind=$1 arg=$2 log=$3 rc=0
  case $kind in
    host) "$arg" > "$log" 2>&1 || rc=$? ;;
    qemu) timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$arg" \
            > "$log" 2>&1 || rc=$? ;;
    qemu4) timeout 300 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel "$arg" \
            > "$log" 2>&1 || rc=$? ;;
  esac
  echo "exit $rc" >> "$log"
}
export -f run_job
{
  # the host binary, every case in one process, first: the longest
  echo "host $OUT/host/conform $OUT/host.log"
  [ $have_arm = 1 ] && for k in $(cut -d' ' -f1 "$OUT/images.txt"); do echo "qemu $OUT/m55/$k.elf $OUT/m55/$k.log"; done
  [ $have_arm = 1 ] && for k in $(cut -d' ' -f1 "$OUT/images4.txt"); do echo "qemu4 $OUT/m4f/$k.elf $OUT/m4f/$k.log"; done
} > "$OUT/jobs.txt"
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt"
stamp "ran the host binary$( [ $have_arm = 1 ] && echo ", $n_images images on qemu mps3-an547 and $n_images4 on qemu mps2-an386")"
# a run that crashed, printed a sanitizer report at exit or was cut short
# (its log lacks "exit 0") fails the suite, whatever its cases' lines say;
# its log's tail shows why
runs_ok=1
for log in "$OUT/host.log" $( [ $have_arm = 1 ] && ls "$OUT"/m55/*.log "$OUT"/m4f/*.log 2>/dev/null); do
  grep -q '^exit 0$' "$log" && continue
  runs_ok=0
  echo "FAIL ${log#"$OUT"/}: the run did not exit 0 ($(tail -n 1 "$log"))"
  grep -v '^CONF PASS' "$log" | tail -n 15 | sed 's/^/    /'
done

# ---- 4. the table ----------------------------------------------------------------
table_ok=1
python3 tests/conformance/conform_gen.py summarise "$OUT" || table_ok=0
stamp "conformance suite done"
[ $runs_ok = 1 ] || echo "FAIL: a run did not exit 0 (above), whatever its cases' lines say"
[ $runs_ok = 1 ] && [ $table_ok = 1 ]
