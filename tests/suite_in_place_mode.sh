#!/usr/bin/env bash
# suite_in_place_mode.sh — memory.in_place false | true | speed | size.
# Checked, with memplan convert and plan:
#   - true and size write byte-identical modules (the keyword spotters,
#     generic and cortex-m55; that true writes the modules it wrote before
#     speed and size existed is tools/module_digests.sh's proof);
#   - speed on the keyword spotters (the corpus model and examples/kws):
#     no operator runs a channel-serial kernel, and the scratch arena is
#     the in-place bound size reports from before its channel-serial
#     choice, reached; size needs less;
#   - the residency report says which way (planner.in_place_mode), and
#     size's planner.channel_serial.speed_scratch, which the summary gives
#     too, is the scratch of speed's own plan;
#   - every corpus model: speed runs no channel-serial kernel, and where
#     size runs none either, speed writes size's module byte for byte (the
#     residency report but for planner.in_place_mode);
#   - a 16x8 fire module (mkmodel fixture fire_s16) for the Cortex-M55:
#     size elides its concatenation and the two convolutions that write
#     into it run their reference kernels; speed keeps the concatenation
#     and their specialised kernels; for the generic target (reference
#     kernels either way) speed elides it too;
#   - a bad value, in the file or on the command line, is an error naming
#     memory.in_place, its line and column and the accepted values, exit
#     2, and no module folder is written.
# Skips the corpus part (with a NOTICE) when ../shared/models is absent.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
# absolute: the configs this suite writes live in a temporary folder, and a
# model path in a config is read from the config's folder
MODELS=${MEMPLAN_MODELS:-$ROOT/../shared/models}
[ -d "$MODELS" ] && MODELS=$(cd "$MODELS" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
scratch_size() { awk '$3 == "scratch" { print $6; exit }'; }
scratch_lb() { awk '$3 == "scratch" { print $8, $9; exit }'; }

# convert MODEL TARGET MODE DIR: the module of MODEL in DIR
convert() {
  cat > "$tmp/c.yaml" <<YAML
model:  {path: $1}
module: {path: $4, prefix: m, target: $2}
platform: {name: apollo510_evb}
memory: {in_place: $3, dump_residency_json: true}
verbose: 0
YAML
  rm -rf "$4"
  "$MEMPLAN" convert --path "$tmp/c.yaml" --allow-unsupported > /dev/null 2> "$tmp/convert.err"
}

# the keyword spotters: the corpus one (when present) and the example
kws_models=("$ROOT/examples/kws/kws.tflite")
[ -f "$MODELS/mlperf_kws_ref_int8.tflite" ] && kws_models+=("$MODELS/mlperf_kws_ref_int8.tflite")
for m in "${kws_models[@]}"; do
  name=$(basename "$m" .tflite)
  for target in generic cortex-m55; do
    convert "$m" $target true "$tmp/true" || bad "$name $target true: convert exit $?"
    convert "$m" $target size "$tmp/size" || bad "$name $target size: convert exit $?"
    if diff -r "$tmp/true" "$tmp/size" > /dev/null; then
      ok "$name $target: true and size write the same module, byte for byte"
    else
      bad "$name $target: true and size write different modules"
    fi
    convert "$m" $target speed "$tmp/speed" || bad "$name $target speed: convert exit $?"
    diff -r "$tmp/size" "$tmp/speed" > /dev/null && bad "$name $target: speed writes size's module"
  done
  "$MEMPLAN" plan "$m" --memory.in_place=size --json > "$tmp/size.json" 2>/dev/null || bad "$name: plan size --json exit $?"
  "$MEMPLAN" plan "$m" --memory.in_place=speed --json > "$tmp/speed.json" 2>/dev/null || bad "$name: plan speed --json exit $?"
  "$MEMPLAN" plan "$m" --memory.in_place=true --json > "$tmp/true.json" 2>/dev/null || bad "$name: plan true --json exit $?"
  python3 tests/check_residency.py "$tmp/size.json" "$tmp/speed.json" > "$tmp/check.txt" || bad "$name: $(cat "$tmp/check.txt")"
  python3 - "$tmp" "$name" <<'PY' || fail=1
import json, sys
t, name = sys.argv[1:]
size, speed, true = (json.load(open(t + f)) for f in ("/size.json", "/speed.json", "/true.json"))
bad = []
if (size["planner"].get("in_place_mode"), speed["planner"].get("in_place_mode"), true["planner"].get("in_place_mode")) != ("size", "speed", "size"):
    bad.append("planner.in_place_mode is not size / speed / size")
cs = size["planner"].get("channel_serial")
scratch = lambda r: sum(a["size"] for a in r["arenas"] if a["role"] == "scratch")
if not cs: bad.append("size has no planner.channel_serial")
elif cs.get("speed_scratch") != scratch(speed) or cs["scratch"] != scratch(size):
    bad.append("channel_serial %s; the plans' scratch: size %d, speed %d" % (cs, scratch(size), scratch(speed)))
if "channel_serial" in speed["planner"]: bad.append("speed has planner.channel_serial")
for x in bad: print("FAIL %s: %s" % (name, x))
if bad: sys.exit(1)
print("ok   %s: the reports say size / speed, and size's speed_scratch %d is speed's plan" % (name, scratch(speed)))
PY
  "$MEMPLAN" plan "$m" --memory.in_place=size > "$tmp/size.txt" 2>/dev/null || bad "$name: plan size exit $?"
  "$MEMPLAN" plan "$m" --memory.in_place speed > "$tmp/speed.txt" 2>/dev/null || bad "$name: plan speed exit $?"
  before=$(sed -n 's/.*lowers the in-place bound from \([0-9]*\) to .*/\1/p' "$tmp/size.txt")
  s_size=$(scratch_size < "$tmp/size.txt") s_speed=$(scratch_size < "$tmp/speed.txt")
  lb_speed=$(scratch_lb < "$tmp/speed.txt")
  n_serial=$(sed -n '/^kernels for target/,/^$/p' "$tmp/speed.txt" | grep -c '_serial')
  if [ -z "$before" ]; then
    bad "$name: size runs no depthwise convolution channel by channel"
  elif [ "$n_serial" != 0 ] || grep -q '^channel by channel' "$tmp/speed.txt"; then
    bad "$name: speed runs $n_serial channel-serial kernels"
  elif [ "$s_speed" != "$before" ] || [ "$lb_speed" != "$before =" ]; then
    bad "$name: speed needs $s_speed bytes (bound $lb_speed), the bound without channel-serial kernels is $before"
  elif ! [ "$s_size" -lt "$s_speed" ]; then
    bad "$name: size needs $s_size bytes, not less than speed's $s_speed"
  else
    ok "$name: speed runs no channel-serial kernel and needs $s_speed bytes, the in-place bound without them, reached; size $s_size"
  fi
  grep -q "memory.in_place: speed keeps their pixel-order kernels and needs $s_speed bytes of scratch, $((s_speed - s_size)) more than these $s_size" "$tmp/size.txt" &&
    grep -q '^in place  memory.in_place: size' "$tmp/size.txt" && grep -q '^in place  memory.in_place: speed' "$tmp/speed.txt" &&
    ok "$name: the summaries say which way, and size's what speed needs" ||
    bad "$name: the summaries do not say which way, or size's not what speed needs"
done

# every corpus model: speed runs no channel-serial kernel; where size runs
# none either, the two modules are the same bytes
if [ -d "$MODELS" ]; then
  n=0 same=0
  for m in "$MODELS"/*.tflite; do
    name=$(basename "$m" .tflite)
    convert "$m" cortex-m55 size "$tmp/size"; rs=$?
    convert "$m" cortex-m55 speed "$tmp/speed"; rp=$?
    [ "$rs" = "$rp" ] || { bad "$name: size exits $rs, speed $rp"; continue; }
    [ "$rs" = 0 ] || continue
    n=$((n + 1))
    if grep -q '_serial' "$tmp/speed/m_residency.json"; then
      bad "$name: speed runs a channel-serial kernel"
    elif ! grep -q '_serial' "$tmp/size/m_residency.json"; then
      # the same files, the residency reports but for the mode they name
      if diff -r -x m_residency.json "$tmp/size" "$tmp/speed" > /dev/null &&
         python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert (a["planner"].pop("in_place_mode"), b["planner"].pop("in_place_mode")) == ("size", "speed")
assert a == b' "$tmp/size/m_residency.json" "$tmp/speed/m_residency.json"; then same=$((same + 1))
      else bad "$name: no channel-serial kernel with size, yet speed writes another module"; fi
    fi
  done
  if [ "$n" -ge 1 ]; then
    ok "$n corpus models: speed runs no channel-serial kernel; $same of them, without one under size too, the same module as size"
  else bad "no corpus model in $MODELS converts with size or speed ($(head -n 1 "$tmp/convert.err"))"; fi
else
  echo "NOTICE: no corpus models in $MODELS: the corpus part is not checked"
fi

# a 16x8 fire module: the concatenation elided costs its producers their
# specialised kernels on a Cortex-M target, so speed keeps it there
MKMODEL=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}/mkmodel
"$MKMODEL" fixture fire_s16 "$tmp/fs.tflite" > /dev/null || bad "mkmodel fixture fire_s16: exit $?"
kernels() { sed -n '/^kernels for target/,/^$/p' "$1" | awk '$1 ~ /^[0-3]$/ { printf "%s ", $3 }'; }
for t in cortex-m55 generic; do
  for mode in size speed; do
    "$MEMPLAN" plan "$tmp/fs.tflite" --module.target $t --memory.in_place=$mode > "$tmp/fs_${t}_$mode.txt" 2>/dev/null ||
      bad "fire_s16 $t $mode: plan exit $?"
  done
  k_size=$(kernels "$tmp/fs_${t}_size.txt") k_speed=$(kernels "$tmp/fs_${t}_speed.txt")
  if [ $t = cortex-m55 ]; then want_size="mpk_conv2d_s16 mpk_conv2d_s16 (view, mpk_conv2d_s16_fast "
    want_speed="mpk_conv2d_s16_fast mpk_conv2d_s16_fast mpk_concat mpk_conv2d_s16_fast "
  else want_size="mpk_conv2d_s16 mpk_conv2d_s16 (view, mpk_conv2d_s16 "; want_speed=$want_size; fi
  if [ "$k_size" = "$want_size" ] && [ "$k_speed" = "$want_speed" ]; then
    ok "fire_s16 $t: size runs $k_size, speed $k_speed"
  else
    bad "fire_s16 $t: size runs '$k_size' (want '$want_size'), speed '$k_speed' (want '$want_speed')"
  fi
done

# a bad value: file (line:column) and command line; no module written
printf 'model: {path: %s/examples/kws/kws.tflite}\nmodule: {path: %s/bad_out}\nmemory:\n  in_place: fastest\n' \
  "$ROOT" "$tmp" > "$tmp/bad.yaml"
rc=0; "$MEMPLAN" convert --path "$tmp/bad.yaml" > "$tmp/bad.out" 2> "$tmp/bad.err" || rc=$?
if [ $rc = 2 ] && grep -q "bad.yaml:4:13: error: 'memory.in_place' must be false, true, speed or size, not 'fastest'" "$tmp/bad.err" &&
   [ ! -e "$tmp/bad_out" ]; then
  ok "a bad memory.in_place in the file: exit 2, line 4 column 13, the accepted values, no module"
else
  bad "a bad memory.in_place in the file: exit $rc, $(cat "$tmp/bad.err")"
fi
rc=0; "$MEMPLAN" plan examples/kws/kws.tflite --memory.in_place=sped > /dev/null 2> "$tmp/bad2.err" || rc=$?
if [ $rc = 2 ] && grep -q "memory.in_place.*false, true, speed or size.*did you mean 'speed'" "$tmp/bad2.err"; then
  ok "a bad --memory.in_place: exit 2, the accepted values and a suggestion"
else
  bad "a bad --memory.in_place: exit $rc, $(cat "$tmp/bad2.err")"
fi
exit $fail
