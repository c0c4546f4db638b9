#!/usr/bin/env bash
# suite_shared_scratch.sh — several models in one config (models: [...])
# share one scratch arena per memory.  From ../shared/models and
# ../shared/golden (skipped with a NOTICE when absent):
#   - convert writes a module per model, in module.path/<prefix>; the first
#     model with scratch in a memory defines the shared buffer, the others
#     bind to it; every residency report gives the shared size (the largest
#     need) and each model's need, and validates (tests/check_residency.py);
#     the summary and the HTML reports (one per model) name the shared buffer;
#   - the two modules linked into one program on the host (ASan + UBSan) and
#     into one image for the Cortex-M55 (QEMU mps3-an547) and the Cortex-M4F
#     (mps2-an386) run alternately, the
#     shared scratch filled with garbage before every run, and match TFLM
#     bit for bit on every golden case (tests/shared/two_models.c);
#   - a memory that holds each model alone but not the shared scratch and
#     every model's pinned constants together fails convert, naming the
#     memory, and writes nothing;
#   - with the constants unpinned the models are planned as one problem:
#     the weights that do not fit beside the shared scratch move to the
#     next memory, and each model's summary says which figure is its own
#     and which the shared buffer's.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
MODELS=${MEMPLAN_MODELS:-../shared/models}
GOLDEN=${MEMPLAN_GOLDEN:-../shared/golden}
A=mlperf_kws_ref_int8 B=mlperf_ad01_int8
if [ ! -f "$MODELS/$A.tflite" ] || [ ! -f "$MODELS/$B.tflite" ] || [ ! -d "$GOLDEN/$A" ] || [ ! -d "$GOLDEN/$B" ]; then
  echo "NOTICE: $MODELS or $GOLDEN lacks $A / $B: shared scratch is not tested"
  exit 0
fi
MODELS=$(cd "$MODELS" && pwd) GOLDEN=$(cd "$GOLDEN" && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

cat > "$out/two.yaml" <<YAML
models:
  - {path: $MODELS/$A.tflite, prefix: kws}
  - {path: $MODELS/$B.tflite, prefix: ad01}
module: {path: out}
platform: {name: apollo510_evb}
memory:
  tensors:
    - {type: constant, attributes: {memory: mram}}
  dump_residency_json: true
YAML
if "$MEMPLAN" convert --path "$out/two.yaml" --report "$out/r.html" > "$out/convert.log" 2>&1; then
  echo "ok   convert writes the two modules"
else
  echo "FAIL convert:"; cat "$out/convert.log"; exit 1
fi
mod=$out/out
# the summary's arena rows and the HTML reports (r_kws.html, r_ad01.html)
# name the shared buffer
if [ "$(grep -c '^0   shared_arena_dtcm_buffer  *scratch  *dtcm' "$out/convert.log")" = 2 ]; then
  echo "ok   the summary lists both scratch arenas as shared_arena_dtcm_buffer"
else
  echo "FAIL the summary's scratch rows:"; grep '^0 ' "$out/convert.log"; fail=1
fi
for p in kws ad01; do
  if grep -q "scratch shared with the config's other models: one buffer of 15.6 KiB" "$out/r_$p.html" &&
     grep -q 'shared_arena_dtcm_buffer' "$out/r_$p.html"; then
    echo "ok   r_$p.html shows the shared buffer"
  else
    echo "FAIL r_$p.html does not show the shared buffer"; fail=1
  fi
done
grep '^shared ' "$out/convert.log" | sed 's/^/     /'
python3 - "$mod/kws/kws_residency.json" "$mod/ad01/ad01_residency.json" <<'PY' || fail=1
import json, sys
ok = True
reps = [json.load(open(p)) for p in sys.argv[1:]]
scr = [next(a for a in r["arenas"] if a["role"] == "scratch" and a["memory"] == "dtcm") for r in reps]
size = max(a["size"] for a in scr)
for r, a, here in zip(reps, scr, [True, False]):
    s = a.get("shared")
    good = (s is not None and a["symbol"] == "shared_arena_dtcm_buffer" and s["size"] == size
            and s["defined_here"] == here and [n["prefix"] for n in s["needs"]] == ["kws", "ad01"]
            and [n["size"] for n in s["needs"]] == [x["size"] for x in scr])
    print(("ok  " if good else "FAIL") + f" {r['model']['file']}: scratch {a['size']} B bound to the shared {size} B"
          + (" it defines" if here else ""))
    ok &= good
sys.exit(0 if ok else 1)
PY
python3 tests/check_residency.py "$mod/kws/kws_residency.json" "$mod/ad01/ad01_residency.json" || fail=1
n_def=$(grep -l '^[A-Z0-9_]* [A-Z0-9_()]* uint8_t shared_arena_dtcm_buffer\[' "$mod"/*/src/*_arenas.c | wc -l)
[ "$n_def" = 1 ] && echo "ok   the shared buffer is defined once" || { echo "FAIL the shared buffer is defined $n_def times"; fail=1; }

DEFS=(-I"$mod/kws/include" -I"$mod/ad01/include" -I"$mod/kws/kernels" -DKWS_WITH_KERNELS=1
  -DAD01_WITH_KERNELS=1 -DA_H='"kws_model.h"' -DB_H='"ad01_model.h"' -DA_PREFIX=kws -DB_PREFIX=ad01
  -DA_UP=KWS -DB_UP=AD01 -DGOLDEN_A="\"$GOLDEN/$A\"" -DGOLDEN_B="\"$GOLDEN/$B\"")
# one copy of the kernels: every module of a config carries the same files
SRCS=(tests/shared/two_models.c "$mod"/kws/src/*.c "$mod"/ad01/src/*.c "$mod"/kws/kernels/*.c)
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if cc -std=c99 -Wall -Wextra -Werror -O1 -g $SAN "${DEFS[@]}" "${SRCS[@]}" -lm -o "$out/host" 2> "$out/host.log" &&
   "$out/host" > "$out/host.out" 2>&1 && grep -q '^DONE: 0 failures$' "$out/host.out"; then
  echo "ok   host: both modules, one scratch buffer, alternately bit-exact with TFLM ($(grep -c '^PASS .* case' "$out/host.out") runs)"
else
  echo "FAIL host:"; cat "$out/host.log" "$out/host.out" 2>/dev/null | tail -20; fail=1
fi

if command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null; then
  T=tests/target
  PL=()
  for P in KWS AD01; do
    PL+=("-D${P}_PUT_IN_DTCM=__attribute__((section(\".bss.mp_dtcm\")))"
         "-D${P}_PUT_CONST_IN_MRAM=__attribute__((section(\".rodata.mp_mram\")))")
  done
  # core, CPU flags, linker script, QEMU machine, dtcm's address prefix
  for target in "Cortex-M55|-mcpu=cortex-m55 -mthumb -mfloat-abi=hard|an547.ld|mps3-an547|30" \
                "Cortex-M4F|-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard|an386.ld|mps2-an386|20"; do
    IFS='|' read -r core CPU ld machine dtcm <<<"$target"
    elf=$out/two_${machine}.elf
    if arm-none-eabi-gcc -std=c99 -Wall -Wextra -Werror -O2 $CPU -ffunction-sections -fdata-sections \
         -DTWO_TARGET -I$T "${DEFS[@]}" "${PL[@]}" "${SRCS[@]}" $T/startup.c $T/semihost.c \
         -nostartfiles --specs=nano.specs --specs=nosys.specs -T $T/$ld -Wl,--gc-sections \
         -Wl,--no-warn-rwx-segments -lm -o "$elf" 2> "$out/$machine.log"; then
      timeout 300 qemu-system-arm -M $machine -nographic -semihosting -kernel "$elf" > "$out/$machine.out" 2>&1
      rc=$?
      if [ $rc = 0 ] && grep -q '^DONE: 0 failures$' "$out/$machine.out"; then
        echo "ok   $core ($machine): both modules in one image, alternately bit-exact with TFLM ($(grep -c '^PASS .* case' "$out/$machine.out") runs)"
      else
        echo "FAIL $core run (exit $rc):"; tail -20 "$out/$machine.out"; fail=1
      fi
      syms=$(arm-none-eabi-nm "$elf")
      if [ "$(grep -c ' shared_arena_dtcm_buffer$' <<<"$syms")" = 1 ] && grep -q "^$dtcm[0-9a-f]* B shared_arena_dtcm_buffer\$" <<<"$syms" &&
         ! grep -q 'kws_arena_dtcm_buffer\|ad01_arena_dtcm_buffer' <<<"$syms"; then
        echo "ok   $core: one shared_arena_dtcm_buffer, in the dtcm arenas' RAM, and no per-model scratch"
      else
        echo "FAIL $core image symbols:"; grep 'arena' <<<"$syms"; fail=1
      fi
    else
      echo "FAIL $core build:"; tail -20 "$out/$machine.log"; fail=1
    fi
  done
else
  echo "NOTICE: arm-none-eabi-gcc or qemu-system-arm is absent: the Cortex-M55 and M4F runs are skipped"
fi

# each model fits dtcm alone (kws 40,384 B, ad01 271,776 B), but their
# pinned constants together (295,264 B) do not, wherever the scratch goes
sed -e 's/    - {type: constant, attributes: {memory: mram}}/    - {type: constant, attributes: {memory: dtcm}}/' \
    -e 's|^module: {path: out}|module: {path: tight}|' "$out/two.yaml" > "$out/tight.yaml"
echo '  constraints: [{name: dtcm, max_size: 295000}]' >> "$out/tight.yaml"
"$MEMPLAN" convert --path "$out/tight.yaml" > "$out/tight.log" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "error: dtcm cannot hold the shared scratch" "$out/tight.log" && [ ! -e "$out/tight" ]; then
  echo "ok   a memory too small for the shared scratch and both models' constants: exit 1, nothing written"
else
  echo "FAIL tight budget: exit $rc, $(ls "$out" | tr '\n' ' ')"; cat "$out/tight.log"; fail=1
fi
# the same budget with the constants left to the planner: each model alone
# keeps its weights in dtcm, together they do not fit there; planned as one
# problem, the weights that do not fit move to sram and convert succeeds,
# every memory holding the shared scratch and all the models' arenas
sed -e '/    - {type: constant, attributes: {memory: mram}}/d' -e 's/^  tensors:$//' \
    -e 's|^module: {path: out}|module: {path: joint}|' "$out/two.yaml" > "$out/joint.yaml"
echo '  constraints: [{name: dtcm, max_size: 300000}]' >> "$out/joint.yaml"
"$MEMPLAN" convert --path "$out/joint.yaml" > "$out/joint.log" 2>&1
rc=$?
held=$(sed -n 's/^shared    dtcm: .* dtcm holds \([0-9]*\) of its 300000 B for all the models.*/\1/p' "$out/joint.log" | sort -u)
if [ $rc = 0 ] && [ -n "$held" ] && [ "$(wc -l <<<"$held")" = 1 ] && [ "$held" -le 300000 ] &&
   [ "$(grep -c "^shared    dtcm: this model's [0-9]* B of scratch lie in the [0-9]* B shared buffer" "$out/joint.log")" = 2 ] &&
   grep -q '^sram ' "$out/joint.log" && [ -d "$out/joint/kws" ] && [ -d "$out/joint/ad01" ]; then
  echo "ok   planned together, the models fit a dtcm that holds each alone but not both as planned alone (dtcm holds $held of 300000 B)"
else
  echo "FAIL models planned together: exit $rc"; cat "$out/joint.log"; fail=1
fi
exit $fail
