#!/usr/bin/env bash
# Run the whole test suite: every unit-test binary, then every suite script
# (tests/suite_*.sh).  Called by `make check` with MODE=asan.  Prints one line
# per test program and a summary; exits non-zero when anything failed.
set -u
cd "$(dirname "$0")/.."
MODE=${MODE:-asan}
BUILD=build/$MODE
export MEMPLAN=$PWD/$BUILD/memplan
export MEMPLAN_BUILD=$PWD/$BUILD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fail=0; passed=0; failed_list=()
log=$BUILD/test-logs; mkdir -p "$log"
for t in $BUILD/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  start=$(date +%s)
  if "$t" >"$log/$name.log" 2>&1; then
    passed=$((passed+1)); printf 'PASS  %-32s %4ss\n' "$name" $(( $(date +%s) - start ))
  else
    fail=$((fail+1)); failed_list+=("$name"); printf 'FAIL  %-32s (log: %s)\n' "$name" "$log/$name.log"
    tail -n 40 "$log/$name.log" | sed 's/^/      /'
  fi
  grep -h '^NOTICE' "$log/$name.log" | sort -u | sed 's/^/      /'
done
for s in tests/suite_*.sh; do
  [ -f "$s" ] || continue
  name=$(basename "$s" .sh)
  start=$(date +%s)
  if bash "$s" >"$log/$name.log" 2>&1; then
    passed=$((passed+1)); printf 'PASS  %-32s %4ss\n' "$name" $(( $(date +%s) - start ))
  else
    fail=$((fail+1)); failed_list+=("$name"); printf 'FAIL  %-32s (log: %s)\n' "$name" "$log/$name.log"
    tail -n 40 "$log/$name.log" | sed 's/^/      /'
  fi
  grep -h '^NOTICE' "$log/$name.log" | sort -u | sed 's/^/      /'
done
echo "----"
echo "$passed passed, $fail failed"
[ $fail -eq 0 ] || { echo "failed: ${failed_list[*]}"; exit 1; }
