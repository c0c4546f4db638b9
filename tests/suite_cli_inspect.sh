#!/usr/bin/env bash
# suite_cli_inspect.sh — golden tests of `memplan inspect`: the tables and
# JSON it prints for memplan's fixture models and the bundled example, and
# the exact error text and exit status for malformed, truncated or
# unsupported models and bad usage; and of `memplan plan`'s summary
# (tests/cli/plan/): the hint line, the placement reasons of --verbose 2
# and the memory fill of --verbose 3; and of the help texts
# (tests/cli/help/).
#
# One folder per case under tests/cli/inspect/, tests/cli/plan/ and
# tests/cli/help/:
#   cmd               the arguments after `memplan`, one line, shell words
#   setup             shell commands run first, in the case folder (optional;
#                     makes malformed files from the fixtures; $MKMODEL is
#                     the mkmodel program)
#   expected_status   the exit status
#   expected_stdout   stdout, exactly (absent: stdout must be empty)
#   expected_stderr   stderr, exactly (absent: stderr must be empty)
# Each case runs in a fresh temporary folder holding every fixture as
# NAME.tflite (written by mkmodel) and the bundled example as kws.tflite.
#
# UPDATE=1 rewrites the expected_* files from the current output.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}
MEMPLAN=${MEMPLAN:-$BUILD/memplan}
MKMODEL=$BUILD/mkmodel
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
[ -x "$MKMODEL" ] || { echo "no mkmodel binary at $MKMODEL"; exit 1; }
export MKMODEL

fixtures=$(mktemp -d)
trap 'rm -rf "$fixtures"' EXIT
for f in $("$MKMODEL" --list); do
  "$MKMODEL" fixture "$f" "$fixtures/$f.tflite" || { echo "mkmodel fixture $f failed"; exit 1; }
done
cp examples/kws/kws.tflite "$fixtures/kws.tflite"

fail=0; n=0
for dir in tests/cli/inspect/*/ tests/cli/plan/*/ tests/cli/help/*/; do
  name=$(basename "$dir")
  n=$((n+1))
  tmp=$(mktemp -d)
  cp "$fixtures"/*.tflite "$tmp/"
  ok=1
  if [ -f "$dir/setup" ] && ! (cd "$tmp" && bash -e "$ROOT/$dir/setup") >"$tmp/.setup.log" 2>&1; then
    echo "FAIL $name: setup failed:"; sed 's/^/    /' "$tmp/.setup.log"; ok=0
  fi
  eval "args=($(cat "$dir/cmd"))"
  (cd "$tmp" && "$MEMPLAN" "${args[@]}" >.stdout 2>.stderr)
  rc=$?
  if [ "${UPDATE:-}" = 1 ]; then
    echo "$rc" > "$dir/expected_status"
    rm -f "$dir/expected_stdout" "$dir/expected_stderr"
    [ -s "$tmp/.stdout" ] && cp "$tmp/.stdout" "$dir/expected_stdout"
    [ -s "$tmp/.stderr" ] && cp "$tmp/.stderr" "$dir/expected_stderr"
  fi
  want_rc=$(cat "$dir/expected_status" 2>/dev/null || echo missing)
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc"; ok=0
  fi
  for s in stdout stderr; do
    want=$dir/expected_$s
    [ -f "$want" ] || want=/dev/null
    if ! diff -u "$want" "$tmp/.$s" >"$tmp/.diff" 2>&1; then
      echo "FAIL $name: $s differs:"; sed 's/^/    /' "$tmp/.diff" | head -40; ok=0
    fi
  done
  if [ $ok = 1 ]; then echo "ok   $name"; else fail=$((fail+1)); fi
  rm -rf "$tmp"
done
echo "$((n-fail)) of $n cases passed"
[ $fail -eq 0 ]
