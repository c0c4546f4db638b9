#!/usr/bin/env bash
# The README stays true: every configuration key `memplan convert --help`
# lists appears in the README's reference, every command the README's
# command table names exists, and the worked example's arena rows are what
# convert prints today.
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
exit $fail
