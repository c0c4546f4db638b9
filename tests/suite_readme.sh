#!/usr/bin/env bash
# The README stays true: every configuration key `memplan convert --help`
# lists appears in the README's reference, every command the README's
# command table names exists, the worked example's arena rows and hint line
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
  if grep -qF -- "$got" README.md; then echo "ok   README row $sym"; else echo "FAIL README row for $sym differs from: $got"; fail=1; fi
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
# The firmware example compiles against the module it describes.
awk '/^Using it in firmware:/{f=1} f&&/^```c$/{on=1; next} on&&/^```$/{exit} on' README.md > "$out/app.c"
if [ -s "$out/app.c" ] && cc -std=c99 -Wall -Wextra -Werror -I"$out/m/include" -c "$out/app.c" -o "$out/app.o" 2> "$out/cc.log"; then
  echo "ok   README firmware example compiles"
else
  echo "FAIL README firmware example does not compile:"; cat "$out/cc.log"; fail=1
fi
exit $fail
