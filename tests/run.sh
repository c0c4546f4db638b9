#!/usr/bin/env bash
# Run the whole test suite: every unit-test binary, then every suite script
# (tests/suite_*.sh).  Called by `make check` with MODE=asan.  Prints one line
# per test program as it finishes and a summary; exits non-zero when
# anything failed.
#
# Programs run $TEST_JOBS at a time (default 2, the cores of the build
# machine), except the suites that already spread their own builds and
# emulator runs over $JOBS jobs (SOLO below): those run alone, after the
# others.  Every program writes its own temporary folder, so none sees
# another's files.  TEST_JOBS=1 runs everything one by one, in order.
set -u
cd "$(dirname "$0")/.."
MODE=${MODE:-asan}
BUILD=build/$MODE
export MEMPLAN=$PWD/$BUILD/memplan
export MEMPLAN_BUILD=$PWD/$BUILD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
TEST_JOBS=${TEST_JOBS:-2}
SOLO=" suite_conformance suite_emit_proof "
log=$BUILD/test-logs; mkdir -p "$log"
fail=0; passed=0; failed_list=()

# run NAME CMD...: the program's output goes to its log, its exit status
# and seconds to NAME.res once it is done
run() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  "$@" >"$log/$name.log" 2>&1 || rc=$?
  echo "$rc $(( $(date +%s) - start ))" > "$log/$name.res"
}

# report NAME: one line, and the log's tail on failure
report() {
  local name=$1 rc secs
  read -r rc secs < "$log/$name.res"
  if [ "$rc" = 0 ]; then
    passed=$((passed+1)); printf 'PASS  %-32s %4ss\n' "$name" "$secs"
  else
    fail=$((fail+1)); failed_list+=("$name"); printf 'FAIL  %-32s (log: %s)\n' "$name" "$log/$name.log"
    tail -n 40 "$log/$name.log" | sed 's/^/      /'
  fi
  grep -h '^NOTICE' "$log/$name.log" | sort -u | sed 's/^/      /'
}

names=(); cmds=(); solo=()
for t in $BUILD/tests/test_*; do
  [ -x "$t" ] || continue
  names+=("$(basename "$t")"); cmds+=("$t")
done
for s in tests/suite_*.sh; do
  [ -f "$s" ] || continue
  name=$(basename "$s" .sh)
  case $SOLO in *" $name "*) solo+=("$name"); continue;; esac
  names+=("$name"); cmds+=("bash $s")
done

# the pool: at most TEST_JOBS at once, reported as they finish
pending=()
reap() { # report every pending program that has finished
  local keep=() n
  for n in "${pending[@]}"; do
    if [ -f "$log/$n.res" ]; then report "$n"; else keep+=("$n"); fi
  done
  pending=("${keep[@]}")
}
for i in "${!names[@]}"; do
  rm -f "$log/${names[$i]}.res"
  while [ "$(jobs -rp | wc -l)" -ge "$TEST_JOBS" ]; do wait -n 2>/dev/null || true; reap; done
  # shellcheck disable=SC2086 # a suite's command is "bash FILE"
  run "${names[$i]}" ${cmds[$i]} &
  pending+=("${names[$i]}")
done
wait
reap
for name in "${solo[@]}"; do
  rm -f "$log/$name.res"
  run "$name" bash "tests/$name.sh"
  report "$name"
done
echo "----"
echo "$passed passed, $fail failed"
[ $fail -eq 0 ] || { echo "failed: ${failed_list[*]}"; exit 1; }
