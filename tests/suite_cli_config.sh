#!/usr/bin/env bash
# suite_cli_config.sh — golden tests of `memplan convert`'s configuration
# errors: the exact text (file:line:col, the offending line and its caret,
# the key path and the suggestion) and the exit status are part of the
# contract.
#
# One folder per case under tests/cli/config/:
#   config.yaml               the config (optional; passed as --path config.yaml)
#   args                      more arguments, one per line (optional)
#   expected_exit             the exit status
#   expected_stderr           stderr, exactly
#   expected_stdout_contains  lines that must appear in stdout (optional)
# Each case runs in a fresh temporary folder holding its files and the
# bundled example model as model.tflite.  A failing case must leave its
# output folder (out/) unwritten.
#
# UPDATE=1 rewrites expected_exit / expected_stderr from the current output.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
MODEL=$ROOT/examples/kws/kws.tflite
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
[ -f "$MODEL" ] || { echo "no example model at $MODEL"; exit 1; }
fail=0; n=0
for dir in tests/cli/config/*/; do
  name=$(basename "$dir")
  n=$((n+1))
  tmp=$(mktemp -d)
  cp -R "$dir". "$tmp/"
  cp "$MODEL" "$tmp/model.tflite"
  args=()
  [ -f "$dir/config.yaml" ] && args+=(--path config.yaml)
  if [ -f "$dir/args" ]; then
    while IFS= read -r line; do args+=("$line"); done < "$dir/args"
  fi
  (cd "$tmp" && "$MEMPLAN" convert "${args[@]}" >stdout.txt 2>stderr.txt)
  rc=$?
  if [ "${UPDATE:-}" = 1 ]; then
    echo "$rc" > "$dir/expected_exit"
    cp "$tmp/stderr.txt" "$dir/expected_stderr"
  fi
  ok=1
  want_rc=$(cat "$dir/expected_exit" 2>/dev/null || echo missing)
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc"; ok=0
  fi
  if ! diff -u "$dir/expected_stderr" "$tmp/stderr.txt" >"$tmp/diff.txt" 2>&1; then
    echo "FAIL $name: stderr differs:"; sed 's/^/    /' "$tmp/diff.txt"; ok=0
  fi
  if [ -f "$dir/expected_stdout_contains" ]; then
    while IFS= read -r line; do
      if ! grep -qxF -- "$line" "$tmp/stdout.txt"; then
        echo "FAIL $name: stdout lacks the line: $line"; ok=0
      fi
    done < "$dir/expected_stdout_contains"
  fi
  if [ "$rc" != 0 ] && [ -e "$tmp/out" ]; then
    echo "FAIL $name: failed, yet wrote $tmp/out"; ok=0
  fi
  if [ $ok = 1 ]; then echo "ok   $name"; else fail=$((fail+1)); fi
  rm -rf "$tmp"
done
echo "$((n-fail)) of $n cases passed"
[ $fail -eq 0 ]
