#!/usr/bin/env bash
# The README stays true: every configuration key `memplan convert --help`
# lists appears in the README's reference, every command the README's
# command table names exists, the operator table is the one the conformance
# corpus and the expected refusals give (tests/conformance/operator_table.py), the worked example's arena rows and hint line
# and the in-place example's lines are what convert and plan print today, and the planners the README calls
# experimental are called so by --help; its firmware example compiles against
# the module.
set -u
cd "$(dirname "$0")/.."
MEMPLAN=${MEMPLAN:-build/${MODE:-asan}/memplan}
fail=0
keys=$("$MEMPLAN" convert --help | sed -n 's/^  --\(model\|module\|platform\|memory\)\.\([a-z-]*\)  .*/\1.\2/p' | tr '-' '_' | sort -u)
[ -n "$keys" ] || { echo "FAIL no keys parsed from convert --help"; exit 1; }
for k in $keys; do
  case "$k" in platform.*) continue ;; esac   # documented as the platform mapping
  if grep -q "\`$k\`" README.md; then echo "ok   $k"; else echo "FAIL README lacks config key $k"; fail=1; fi
done
for cmd in convert plan inspect solve; do
  if "$MEMPLAN" "$cmd" --help >/dev/null 2>&1; then echo "ok   memplan $cmd"; else echo "FAIL memplan $cmd --help"; fail=1; fi
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$MEMPLAN" convert --path examples/kws/config.yaml --module.path "$out/m" > "$out/stdout" || { echo "FAIL example convert"; exit 1; }
for sym in kws_arena_dtcm_buffer kws_arena_const_mram__blob; do
  got=$(grep " $sym " "$out/stdout")
  if [ -z "$got" ]; then echo "FAIL convert printed no row for $sym: nothing to find in the README"; fail=1
  elif grep -qF -- "$got" README.md; then echo "ok   README row $sym"
  else echo "FAIL README row for $sym differs from: $got"; fail=1; fi
done
# the hint line of the worked example is what plan prints for that model
MEMPLAN=$(cd "$(dirname "$MEMPLAN")" && pwd)/$(basename "$MEMPLAN")
MKMODEL=$(dirname "$MEMPLAN")/mkmodel
if [ -x "$MKMODEL" ]; then
  (cd "$out" && "$MKMODEL" random --seed 5 r5.tflite && "$MEMPLAN" plan r5.tflite > plan.txt 2>/dev/null) \
    || { echo "FAIL the README's hint example does not run"; exit 1; }
  for pat in '^hint ' ' r5_arena_dtcm_buffer '; do
    got=$(grep -- "$pat" "$out/plan.txt")
    if [ -n "$got" ] && grep -qxF -- "$got" README.md; then echo "ok   README line: ${got:0:40}..."
    else echo "FAIL README lacks the line plan prints: $got"; fail=1; fi
  done
  # the in-place example: a held-out network with memory.in_place
  (cd "$out" && "$MKMODEL" fixture mobilenet_v2_96_035 mnv2.tflite &&
     "$MEMPLAN" plan mnv2.tflite --memory.in_place=true > mnv2.txt 2>/dev/null) ||
    { echo "FAIL the README's in-place example does not run"; exit 1; }
  for pat in ' mnv2_arena_dtcm_buffer ' '^arena 0: in place' '^rewrites: '; do
    got=$(grep -- "$pat" "$out/mnv2.txt")
    if [ -n "$got" ] && grep -qxF -- "$got" README.md; then echo "ok   README line: ${got:0:40}..."
    else echo "FAIL README lacks the line plan prints: $got"; fail=1; fi
  done
  if "$MEMPLAN" plan "$out/r5.tflite" --quiet 2>/dev/null | grep -q '^hint'; then
    echo "FAIL --quiet keeps the hint"; fail=1
  fi
else
  echo "FAIL no mkmodel beside $MEMPLAN"; fail=1
fi
for p in greedy_by_size hill_climb exact; do
  if grep -q "^| \`$p\` | .*Experimental" README.md && "$MEMPLAN" convert --help \
       | awk -v p="$p" '/^        [a-z]/ { f = ($1 == p) } f' | grep -qi experimental; then
    echo "ok   $p is called experimental in the README and in --help"
  else echo "FAIL $p is not called experimental in the README or convert --help"; fail=1; fi
done
# Every tool output block (a fenced block opening with `$ build/release/...`)
# is what the tools print today, and none is empty.
python3 tests/check_readme_blocks.py README.md "$(dirname "$MEMPLAN")" || fail=1
# The figures the README's prose quotes from the tools' output.  fig
# TEMPLATE VALUE...: the template with each %s replaced by a value written
# with thousands separators must appear in the README (line breaks are
# spaces); a value the tools no longer give, or an empty one, fails.
readme_flat=$(tr '\n' ' ' < README.md | tr -s ' ')
fig() {
  local tpl=$1 v args=()
  shift
  for v in "$@"; do
    if ! [[ $v =~ ^[0-9]+$ ]]; then echo "FAIL README figure '$tpl': the tool gave '$v'"; fail=1; return; fi
    args+=("$(printf '%s' "$v" | rev | sed 's/[0-9]\{3\}/&,/g; s/,$//' | rev)")
  done
  # shellcheck disable=SC2059 # the template is the format
  local want; want=$(printf "$tpl" "${args[@]}")
  if grep -qF -- "$want" <<<"$readme_flat"; then echo "ok   README figure: $want"
  else echo "FAIL README lacks the figure the tools give: $want"; fail=1; fi
}
# scratch SIZE of the first scratch arena row of a summary on stdin
scratch_size() { awk '$3 == "scratch" { print $6; exit }'; }
scratch_lb() { awk '$3 == "scratch" { print $8; exit }'; }
fig 'The scratch arena is %s bytes, which is also its lower bound' \
  "$(scratch_size < "$out/stdout")"
(cd "$out" && "$MKMODEL" fixture mobilenet_v2_96_035 mnv2.tflite &&
   "$MEMPLAN" plan mnv2.tflite --quiet > mnv2_plain.txt 2>/dev/null)
fig 'Without the option the same model needs %s bytes (greedy) against a tensor-level bound of %s' \
  "$(scratch_size < "$out/mnv2_plain.txt")" "$(scratch_lb < "$out/mnv2_plain.txt")"
MODELS=${MEMPLAN_MODELS:-../shared/models}
if [ -d "$MODELS" ]; then
  kws=$MODELS/mlperf_kws_ref_int8.tflite vww=$MODELS/mlperf_vww_96_int8.tflite
  pd=$MODELS/tflm_person_detect_int8.tflite
  "$MEMPLAN" plan "$kws" --memory.in_place=true --verbose 2 > "$out/kws_ip.txt" 2>/dev/null
  "$MEMPLAN" plan "$kws" --quiet > "$out/kws.txt" 2>/dev/null
  fig 'depthwise convolutions so: %s bytes of scratch instead of %s with every planner (its in-place bound falls from %s to %s; the tensor-level bound is %s)' \
    "$(scratch_size < "$out/kws_ip.txt")" \
    "$(sed -n 's/.*lowers the in-place bound from \([0-9]*\) to .*/\1/p' "$out/kws_ip.txt")" \
    "$(sed -n 's/.*lowers the in-place bound from \([0-9]*\) to .*/\1/p' "$out/kws_ip.txt")" \
    "$(sed -n 's/.*lowers the in-place bound from [0-9]* to \([0-9]*\) bytes.*/\1/p' "$out/kws_ip.txt")" \
    "$(scratch_lb < "$out/kws.txt")"
  "$MEMPLAN" plan "$kws" --memory.in_place=speed > "$out/kws_speed.txt" 2>/dev/null
  fig '`speed` gives %s bytes, its in-place bound without them' "$(scratch_size < "$out/kws_speed.txt")"
  "$MEMPLAN" plan "$vww" --memory.in_place=true > "$out/vww_ip.txt" 2>/dev/null
  "$MEMPLAN" plan "$pd" --memory.in_place=true > "$out/pd_ip.txt" 2>/dev/null
  if [ "$(scratch_size < "$out/vww_ip.txt")" = "$(scratch_size < "$out/pd_ip.txt")" ]; then
    fig 'person detection need %s bytes of scratch instead of %s (the tensor-level bound)' \
      "$(scratch_size < "$out/vww_ip.txt")" \
      "$(sed -n 's/^arena 0: .*the tensor-level bound of \([0-9]*\).*/\1/p' "$out/vww_ip.txt")"
  else
    echo "FAIL the README gives one in-place figure for VWW and person detection; they differ"; fail=1
  fi
  "$MEMPLAN" plan "$pd" > "$out/pd.txt" 2>/dev/null
  fig "greedy gives %s bytes of scratch and the hint names \`greedy_by_size\` at the lower bound, %s bytes" \
    "$(scratch_size < "$out/pd.txt")" \
    "$(sed -n 's/^hint      greedy_by_size: \([0-9]*\) B of scratch.*at the lower bound.*/\1/p' "$out/pd.txt")"
else
  echo "NOTICE: no corpus models in $MODELS: the README's corpus figures are not checked"
fi
# The operator table is the one tests/conformance/operator_table.py writes
# from the conformance corpus's manifest and tests/expected_refusals.txt.
CONF=${MEMPLAN_CONFORMANCE:-../shared/conformance}
if [ -f "$CONF/manifest.json" ]; then
  python3 tests/conformance/operator_table.py --corpus "$CONF" --check README.md || fail=1
else
  echo "NOTICE: no conformance corpus in $CONF: the README's operator table is not checked"
fi
# The firmware example compiles against the module it describes.
awk '/^Using it in firmware:/{f=1} f&&/^```c$/{on=1; next} on&&/^```$/{exit} on' README.md > "$out/app.c"
if [ -s "$out/app.c" ] && cc -std=c99 -Wall -Wextra -Werror -I"$out/m/include" -c "$out/app.c" -o "$out/app.o" 2> "$out/cc.log"; then
  echo "ok   README firmware example compiles"
else
  echo "FAIL README firmware example does not compile:"; cat "$out/cc.log"; fail=1
fi
exit $fail
