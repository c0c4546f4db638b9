#!/usr/bin/env bash
# suite_module_tables.sh — the module's own tables as the residency report
# counts them (module_tables) against the module cross-compiled for a
# Cortex-M55 with arm-none-eabi-gcc -O2 -fdata-sections, measured with
# arm-none-eabi-nm and arm-none-eabi-size (tests/check_tables.py).  Cases:
#   - the example model, generic and cortex-m55 (specialised kernels), with
#     allocate_arenas false and memory.io caller (the .bss tables), and with
#     module.tables_memory naming a RAM bank (the tables' load image);
#   - every corpus model ($MEMPLAN_MODELS, default ../shared/models),
#     generic and cortex-m55, but those tests/expected_refusals.txt lists,
#     whose convert must be refused as listed (tests/support/refusals.sh);
#   - the first case of every operator folder of the conformance corpus
#     ($MEMPLAN_CONFORMANCE, default ../shared/conformance): every kernel's
#     params struct.  A case convert refuses must be listed so in
#     tests/expected_refusals.txt, and a listed one must be refused: any
#     other failure of convert (a crash, a sanitizer report) fails.
# TABLES_FILTER (a regular expression on the case name) narrows the run;
# JOBS (2) compiles in parallel.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
for tool in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-size; do
  command -v $tool >/dev/null || { echo "NOTICE: $tool is absent: the module tables are not checked"; exit 0; }
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
. tests/support/refusals.sh
MODELS=${MEMPLAN_MODELS:-../shared/models}
CONF=${MEMPLAN_CONFORMANCE:-../shared/conformance}
FILTER=${TABLES_FILTER:-.}
JOBS=${JOBS:-2}
CFLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -std=c99 -O2 -Wall -Wextra -Werror -ffunction-sections -fdata-sections"
: > "$out/cases.txt"

# case NAME MODEL [convert options...]: convert (its log in $out/NAME.log,
# its exit status in $status); listed for the build when it converts
case_() {
  local name=$1 model=$2; shift 2
  status=0
  grep -Eq "$FILTER" <<<"$name" || return 0
  local d="$out/$name"
  "$MEMPLAN" convert --model.path "$model" --module.path "$d" --module.prefix m \
    --memory.dump_residency_json --verbose 0 "$@" > "$d.log" 2>&1 || { status=$?; return 1; }
  echo "$name $d/m_residency.json $d.o" >> "$out/cases.txt"
}
must() { case_ "$@" || { echo "FAIL $1: convert failed"; cat "$out/$1.log"; fail=1; }; }

kws=examples/kws/kws.tflite
must kws_generic $kws
must kws_m55 $kws --module.target cortex-m55
must kws_caller_no_arenas $kws --memory.io caller --memory.no-allocate-arenas
must kws_tables_in_sram $kws --module.tables_memory sram
if [ -d "$MODELS" ]; then
  for m in "$MODELS"/*.tflite; do
    b=$(basename "$m" .tflite)
    for tg in generic cortex-m55; do
      if [ -n "$(refusal_of "$b")" ]; then
        grep -Eq "$FILTER" <<<"${b}_$tg" || continue
        st=0
        "$MEMPLAN" convert --model.path "$m" --module.path "$out/${b}_$tg" --module.prefix m \
          --verbose 0 --module.target $tg > "$out/${b}_$tg.log" 2>&1 || st=$?
        refused_as_listed "$b" convert $st "$out/${b}_$tg.log" || fail=1
      else
        must "${b}_$tg" "$m" --module.target $tg
      fi
    done
  done
else
  echo "NOTICE: $MODELS is absent: only the example is checked"
fi
if [ -d "$CONF" ]; then
  refused=0
  for dir in "$CONF"/*/; do
    c=$(basename "$dir")
    first=$(ls -d "$dir"[0-9]*/ 2>/dev/null | head -1)
    [ -n "$first" ] && [ -f "$first/model.tflite" ] || continue
    case_ "conf_$c" "$first/model.tflite"
    grep -Eq "$FILTER" <<<"conf_$c" || continue
    if case_refused_as_listed "$c/$(basename "$first")" "$status" "$out/conf_$c.log" > "$out/verdict.txt"; then
      [ "$status" = 0 ] || { refused=$((refused+1)); cat "$out/verdict.txt"; }
    else
      cat "$out/verdict.txt"; fail=1
    fi
  done
  echo "ok   conformance: the first case of every operator folder; $refused refused as tests/expected_refusals.txt lists"
else
  echo "NOTICE: $CONF is absent: the operators' params are checked on the models only"
fi

# every module's source, cross-compiled, $JOBS at a time
build() {
  local name=$1 d=${3%.o}
  arm-none-eabi-gcc $CFLAGS -I"$d/include" -I"$d/kernels" -DM_WITH_KERNELS=1 -c "$d/src/m_model.c" \
    -o "$3" 2>> "$d.log" || { echo "FAIL $name: the module does not cross-compile"; tail -20 "$d.log"; }
}
export -f build; export CFLAGS
xargs -P "$JOBS" -L 1 bash -c 'build "$@"' _ < "$out/cases.txt" > "$out/build.log"
if [ -s "$out/build.log" ]; then cat "$out/build.log"; fail=1; fi
python3 tests/check_tables.py --batch "$out/cases.txt" || fail=1

# tables in RAM: their bytes are counted in that bank's load image
if [ -f "$out/kws_tables_in_sram/m_residency.json" ]; then
  python3 - "$out/kws_tables_in_sram/m_residency.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1])); t = r["module_tables"]
m = {x["memory"]: x for x in r["memories"]}
ok = t["memory"] == "sram" and m["sram"]["tables"] == t["rodata"] and m["sram"]["load_image"] >= t["rodata"] > 0
print(("ok  " if ok else "FAIL") + " kws_tables_in_sram: sram counts the tables and their load image")
sys.exit(0 if ok else 1)
PY
fi
n=$(wc -l < "$out/cases.txt")
echo "$n modules checked"
[ "$n" -gt 0 ] || fail=1
exit $fail
