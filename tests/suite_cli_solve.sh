#!/usr/bin/env bash
# suite_cli_solve.sh — golden tests of `memplan solve`: the solution text,
# the height line, the exit status (1 above --capacity, 2 bad usage or a bad
# row) and the exact error text (file:LINE:COL with the row and a caret)
# are part of the contract.
#
# One folder per case under tests/cli/solve/:
#   args               the arguments, one per line
#   problem.csv        input files the arguments name (optional)
#   stdin.csv          piped to standard input (optional)
#   expected_exit      the exit status
#   expected_stdout    standard output, exactly
#   expected_stderr    standard error, exactly
#   expected_out.csv   the file written with -o out.csv (optional)
# Each case runs in a fresh temporary folder holding its files.  A case that
# fails must leave out.csv unwritten.
#
# UPDATE=1 rewrites the expected_* files from the current output.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
case $MEMPLAN in /*) ;; *) MEMPLAN=$ROOT/$MEMPLAN ;; esac
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
fail=0; n=0
for dir in tests/cli/solve/*/; do
  name=$(basename "$dir")
  n=$((n+1))
  tmp=$(mktemp -d)
  cp -R "$dir". "$tmp/"
  args=()
  while IFS= read -r line; do args+=("$line"); done < "$dir/args"
  stdin=/dev/null
  [ -f "$dir/stdin.csv" ] && stdin="$tmp/stdin.csv"
  (cd "$tmp" && "$MEMPLAN" solve "${args[@]}" <"$stdin" >stdout.txt 2>stderr.txt)
  rc=$?
  if [ "${UPDATE:-}" = 1 ]; then
    echo "$rc" > "$dir/expected_exit"
    cp "$tmp/stdout.txt" "$dir/expected_stdout"
    cp "$tmp/stderr.txt" "$dir/expected_stderr"
    if [ -f "$tmp/out.csv" ]; then cp "$tmp/out.csv" "$dir/expected_out.csv"; fi
  fi
  ok=1
  want_rc=$(cat "$dir/expected_exit" 2>/dev/null || echo missing)
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc"; ok=0
  fi
  for stream in stdout stderr; do
    if ! diff -u "$dir/expected_$stream" "$tmp/$stream.txt" >"$tmp/diff.txt" 2>&1; then
      echo "FAIL $name: $stream differs:"; sed 's/^/    /' "$tmp/diff.txt"; ok=0
    fi
  done
  if [ -f "$dir/expected_out.csv" ]; then
    if ! diff -u "$dir/expected_out.csv" "$tmp/out.csv" >"$tmp/diff.txt" 2>&1; then
      echo "FAIL $name: out.csv differs:"; sed 's/^/    /' "$tmp/diff.txt"; ok=0
    fi
  elif [ -e "$tmp/out.csv" ]; then
    echo "FAIL $name: wrote out.csv, which the case does not expect"; ok=0
  fi
  if [ $ok = 1 ]; then echo "ok   $name"; else fail=$((fail+1)); fi
  rm -rf "$tmp"
done
echo "$((n-fail)) of $n cases passed"
[ $fail -eq 0 ]
