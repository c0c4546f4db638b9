#!/usr/bin/env bash
# suite_emit_proof.sh — prove every plan memplan makes on the host and on
# an emulated Cortex-M55 (issue 5, "The proof").
#
#  1. tests/emit/proof_gen.c writes a module per model x planner x config
#     (see its header) with its probe glue, and build.mk;
#  2. one host binary with every module, gcc -Wall -Wextra -Werror with
#     ASan + UBSan, runs every probe; the module sources of the first
#     planner's plans (the others differ only in table values) also compile
#     warning-free with clang (ASan + UBSan) and for -mcpu=cortex-m4;
#  3. Cortex-M55 images (tests/target: start-up, semihosting, an547.ld) run
#     on qemu-system-arm -M mps3-an547; the probe report and the exit
#     status come back through semihosting;
#  4. every arena symbol in the images has exactly the size the residency
#     report gives, lies in the memory the plan chose and is aligned; a
#     module without allocate_arenas defines no arena symbol;
#  5. a plan with two live tensors forced onto the same bytes, emitted
#     without the verifier, must fail its probe naming the op and tensor;
#  6. `memplan convert` writes a module that builds on its own with its
#     module.mk and its CMakeLists.txt, with the reference kernels, and
#     runs.
# Skips the corpus (with a NOTICE) when ../shared/models ($MEMPLAN_MODELS)
# is absent; the target part (with a NOTICE) when the cross toolchain or
# QEMU is missing.  Builds with $JOBS jobs (2).  Measured: see the report
# of issue 5; every step prints its elapsed time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${MODE:-asan}
BUILD=$ROOT/build/$MODE
JOBS=${JOBS:-2}
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start ))s] $*"; }

for f in "$BUILD/libmemplan.a" "$BUILD/tests/support/fixtures.o" "$BUILD/memplan"; do
  [ -f "$f" ] || { echo "missing $f: run 'make MODE=$MODE tests' first"; exit 1; }
done
# a folder of its own (runs may overlap in a shared tree), removed when
# the proof holds, kept for a look when it does not
OUT=$(mktemp -d "$BUILD/emit-proof.XXXXXX")
trap 'status=$?; if [ $status = 0 ]; then rm -rf "$OUT"; else echo "emit proof artifacts: $OUT"; fi' EXIT
mkdir -p "$OUT"/support "$OUT"/broken

WARN="-Wall -Wextra -Werror"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
GEN_SAN=""
[ "$MODE" = asan ] && GEN_SAN="-fsanitize=address,undefined"
PKG_LIBS=$(pkg-config --libs yaml-0.1 jansson 2>/dev/null || echo -lyaml -ljansson)

# ---- 1. the modules ---------------------------------------------------------
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $WARN -O1 -g $GEN_SAN \
   -Iinclude -Isrc -Itests/support -Itests/emit tests/emit/proof_gen.c \
   "$BUILD/tests/support/fixtures.o" "$BUILD/libmemplan.a" $PKG_LIBS -lm -o "$OUT/proof_gen"
MODELS=${MEMPLAN_MODELS:-../shared/models}
GOLDEN=${MEMPLAN_GOLDEN:-../shared/golden}
[ -d "$MODELS" ] || echo "NOTICE: $MODELS is absent; the proof runs on the fixtures and the example only"
[ -d "$GOLDEN" ] || echo "NOTICE: $GOLDEN is absent; no module runs against TFLM's outputs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
"$OUT/proof_gen" "$OUT" --models "$MODELS" --golden "$GOLDEN" --example examples/kws/kws.tflite \
  | tee "$OUT/gen.log" | grep -E '^(NOTICE|FAIL|skip|proof_gen)' || true
grep -q '^proof_gen: .* 0 failures' "$OUT/gen.log" || { echo "FAIL: module generation"; exit 1; }
n_modules=$(wc -l < "$OUT/manifest.txt")
n_golden=$(sed -n 's/^proof_gen: .*, \([0-9]*\) golden,.*/\1/p' "$OUT/gen.log")
stamp "generated $n_modules modules ($n_golden also run with their kernels against TFLM)"

# ---- 2. host ----------------------------------------------------------------
# The run builds favour compile speed (-O0 host, -O1 target: the proof is
# about memory, not speed); the warnings that need the optimiser are the
# clang (-O1) and Cortex-M4 (-O2) checks'.
HOST_CFLAGS="-std=c99 $WARN -O0 -g $SAN"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/probe.c -o "$OUT/support/probe.o"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/host_main.c -o "$OUT/support/host_main.o"
cc $HOST_CFLAGS -Itests/emit -c tests/emit/golden.c -o "$OUT/support/golden.o"
have_arm=1
for tool in arm-none-eabi-gcc arm-none-eabi-nm qemu-system-arm; do
  command -v $tool >/dev/null || have_arm=0
done
M55_CFLAGS="-std=c99 $WARN -O1 -mcpu=cortex-m55 -mthumb -DPROBE_TARGET"
M4_CFLAGS="-std=c99 $WARN -O2 -mcpu=cortex-m4 -mthumb"
M55_LDFLAGS="-mcpu=cortex-m55 -mthumb -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T tests/target/an547.ld -Wl,--no-warn-rwx-segments"
MAKEVARS=(-f "$OUT/build.mk" -j"$JOBS" PROBE_DIR="$ROOT/tests/emit"
  HOST_CC=cc HOST_CFLAGS="$HOST_CFLAGS" HOST_LDFLAGS="$SAN"
  HOST_SUPPORT="$OUT/support/probe.o $OUT/support/golden.o $OUT/support/host_main.o"
  CLANG_CC=clang CLANG_CFLAGS="-std=c99 $WARN -O1 -fsanitize=address,undefined"
  ARM_CC=arm-none-eabi-gcc M4_CFLAGS="$M4_CFLAGS" M55_CFLAGS="$M55_CFLAGS"
  M55_LDFLAGS="$M55_LDFLAGS" M55_LIBS="-lc -lnosys"
  M55_SUPPORT="$OUT/support/startup.o $OUT/support/semihost.o $OUT/support/target_main.o \
    $OUT/support/probe_m55.o $OUT/support/golden_m55.o")
have_clang=1
command -v clang >/dev/null || { have_clang=0; echo "NOTICE: clang is absent; clang compile check skipped"; }
images=$(sed -n 's/^IMAGES := //p' "$OUT/build.mk")
targets="$OUT/host/proof $OUT/host/golden"
[ $have_clang = 1 ] && targets="$targets clang-check"
if [ $have_arm = 1 ]; then
  for f in startup semihost target_main; do
    arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -Itests/target -c tests/target/$f.c -o "$OUT/support/$f.o"
  done
  arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -c tests/emit/probe.c -o "$OUT/support/probe_m55.o"
  arm-none-eabi-gcc $M55_CFLAGS -Itests/emit -c tests/emit/golden.c -o "$OUT/support/golden_m55.o"
  targets="$targets m4-check $images $OUT/m55/golden.elf"
else
  echo "NOTICE: arm-none-eabi-gcc or qemu-system-arm is absent: target proof skipped"
fi
# one make for everything, so that both cores stay busy
make -s "${MAKEVARS[@]}" $targets
stamp "built: host binary (gcc, ASan+UBSan)$( [ $have_clang = 1 ] && echo ", clang check")$( [ $have_arm = 1 ] && echo ", Cortex-M4 check, $(echo $images | wc -w) Cortex-M55 images")"
"$OUT/host/proof" > "$OUT/host.log" 2>&1 || { grep -v '^PASS' "$OUT/host.log" | head -40; echo "FAIL: host proof"; exit 1; }
grep -q "^host: $n_modules modules, 0 failed" "$OUT/host.log" || { tail -n 3 "$OUT/host.log"; echo "FAIL: host count"; exit 1; }
stamp "host: $n_modules modules, every probe passed"
"$OUT/host/golden" > "$OUT/golden.log" 2>&1 || { grep -v 'PASS' "$OUT/golden.log"; echo "FAIL: golden"; exit 1; }
[ "$(grep -c '^GOLDEN PASS' "$OUT/golden.log")" = "$n_golden" ] || { cat "$OUT/golden.log"; echo "FAIL: golden count"; exit 1; }
stamp "host: $n_golden modules with their kernels reproduce TFLM's outputs"

# ---- 3. target --------------------------------------------------------------
if [ $have_arm = 1 ]; then
  run_image() {
    local elf=$1 log=${1%.elf}.log rc=0
    timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$elf" \
      > "$log" 2>&1 || rc=$?
    echo "exit $rc" >> "$log"
  }
  export -f run_image
  printf '%s\n' $images "$OUT/m55/golden.elf" | xargs -P "$JOBS" -I{} bash -c 'run_image {}'
  bad=0
  for elf in $images; do
    log=${elf%.elf}.log
    if ! grep -q '^exit 0$' "$log" || ! grep -q '^target: .* 0 failed' "$log"; then
      bad=1; echo "FAIL: $(basename "$elf")"; grep -v '^PASS' "$log" | head -20
    fi
  done
  [ $bad = 0 ] || exit 1
  passed=$(cat "$OUT"/m55/img*.log | grep -c '^PASS' || true)
  [ "$passed" = "$n_modules" ] || { echo "FAIL: $passed of $n_modules modules passed on the target"; exit 1; }
  stamp "qemu mps3-an547: $passed modules in $(echo $images | wc -w) images, every probe passed"
  glog=$OUT/m55/golden.log
  if ! grep -q '^exit 0$' "$glog" || [ "$(grep -c '^GOLDEN PASS' "$glog")" != "$n_golden" ]; then
    cat "$glog"; echo "FAIL: golden run on the target"; exit 1
  fi
  stamp "qemu mps3-an547: $n_golden modules with their kernels reproduce TFLM's outputs"

# ---- 4. symbols against the residency report ------------------------------
  python3 - "$OUT" <<'PY'
import json, os, subprocess, sys
out = sys.argv[1]
ranges = {"dtcm": (0x30000000, 0x30080000), "sram": (0x31000000, 0x31400000),
          "mram": (0x38000000, 0x38800000)}
where = {"dtcm": "dtcm", "mram": "mram"}
images = {}
for line in open(os.path.join(out, "manifest.txt")):
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
  arm-none-eabi-size $images | sort -k4 -n | tail -n 3 | sed 's/^/  /'
fi

# ---- 5. a broken plan must fail ---------------------------------------------
"$OUT/proof_gen" "$OUT/broken" --broken --example examples/kws/kws.tflite | tee "$OUT/broken/gen.log" | grep '^broken'
make -s -f "$OUT/broken/build.mk" -j"$JOBS" "${MAKEVARS[@]:2}" "$OUT/broken/host/proof"
if "$OUT/broken/host/proof" > "$OUT/broken/host.log" 2>&1; then
  echo "FAIL: the probe passed a plan with two live tensors on the same bytes"; exit 1
fi
grep '^FAIL' "$OUT/broken/host.log"
grep -Eq "^FAIL .*: op [0-9]+ \([A-Z_0-9]+\): .* tensor [0-9]+ '[^']*' .* it holds the pattern of tensor [0-9]+" \
  "$OUT/broken/host.log" || { echo "FAIL: the broken plan's failure does not name the op and tensor"; exit 1; }
if [ $have_arm = 1 ]; then
  make -s -f "$OUT/broken/build.mk" "${MAKEVARS[@]:2}" $(sed -n 's/^IMAGES := //p' "$OUT/broken/build.mk")
  rc=0
  timeout 120 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$OUT/broken/m55/img0.elf" \
    > "$OUT/broken/m55.log" 2>&1 || rc=$?
  [ $rc != 0 ] && grep -q "^FAIL .*: op [0-9]* (.*tensor" "$OUT/broken/m55.log" \
    || { echo "FAIL: the broken plan passed on the target"; cat "$OUT/broken/m55.log"; exit 1; }
fi
stamp "a broken plan fails its probe, naming the op and tensor"

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
echo "emit proof: $n_modules modules proven on the host$( [ $have_arm = 1 ] && echo " and on qemu mps3-an547" ) in $(( $(date +%s) - start ))s"
