#!/usr/bin/env bash
# Run the whole test suite: every unit-test binary, then every suite script
# (tests/suite_*.sh).  Called by `make check` with MODE=asan.  Prints one line
# per test program as it finishes and a summary; exits non-zero when
# anything failed.
#
# QUICK=1 (make check-quick) is the inner loop, about three minutes of
# the machine's two cores: the unit tests but the six that walk every
# corpus model, kernel or planner problem (QUICK_SKIP below), and a sample
# of the suites (QUICK_SUITES): the layers, the CLI's config, solve and
# inspect suites, and the first conformance case of twelve operator and
# type folders, one per family (QUICK_CONFORMANCE), on the host and QEMU.
# make check runs everything.
#
# Programs run $TEST_JOBS at a time (default 2, the cores of the build
# machine), except the suites that already spread their own builds and
# emulator runs over $JOBS jobs (SOLO below): those run alone, after the
# others.  Every program writes its own temporary folder, so none sees
# another's files.  TEST_JOBS=1 runs everything one by one, in order.
#
# A program that cannot check something (a tool or a data folder is
# missing, a filter is set) says so on a line starting with NOTICE.  Outside
# CI these are notices.  When CI is set (.ci/run sets it), a program that
# printed one fails: in CI every check runs, and the failure names what was
# missing.
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
QUICK=${QUICK:-0}
QUICK_SKIP=" test_golden test_emit test_kernels test_exact test_plan test_planners "
QUICK_SUITES=" suite_layers suite_cli_config suite_cli_solve suite_cli_inspect suite_conformance "
QUICK_CONFORMANCE="conv_2d_int8 depthwise_conv_2d_int8 fully_connected_int16 average_pool_2d_int8"
QUICK_CONFORMANCE+=" add_int8 softmax_int8 logistic_int16 mean_int8 transpose_conv_float32"
QUICK_CONFORMANCE+=" strided_slice_int8 resource_variables_int8 signal_rfft_int16"
if [ "$QUICK" = 1 ]; then
  export CONFORMANCE_FILTER=${CONFORMANCE_FILTER:-^(${QUICK_CONFORMANCE// /|})/000\$}
fi
log=${TEST_LOGS:-$BUILD/test-logs}; mkdir -p "$log"
fail=0; passed=0; failed_list=(); t_start=$(date +%s)

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
  local name=$1 rc secs skipped=""
  read -r rc secs < "$log/$name.res"
  [ -n "${CI:-}" ] && skipped=$(grep -h '^NOTICE' "$log/$name.log" | sort -u)
  if [ "$rc" = 0 ] && [ -n "$skipped" ]; then
    fail=$((fail+1)); failed_list+=("$name")
    printf 'FAIL  %-32s skipped a check, which CI does not allow (log: %s)\n' "$name" "$log/$name.log"
  elif [ "$rc" = 0 ]; then
    passed=$((passed+1)); printf 'PASS  %-32s %4ss\n' "$name" "$secs"
  else
    fail=$((fail+1)); failed_list+=("$name"); printf 'FAIL  %-32s (log: %s)\n' "$name" "$log/$name.log"
    tail -n 40 "$log/$name.log" | sed 's/^/      /'
  fi
  grep -h '^NOTICE' "$log/$name.log" | sort -u | sed 's/^/      /'
}

# The programs: every test binary and suite, or the ones named on the
# command line (a test binary or a suite script: `tests/run.sh
# build/asan/tests/test_plan tests/suite_readme.sh`).
programs=("$@")
if [ ${#programs[@]} = 0 ]; then
  for t in $BUILD/tests/test_*; do
    [ -x "$t" ] && [ "${t%.*}" = "$t" ] || continue
    [ "$QUICK" = 1 ] && case $QUICK_SKIP in *" $(basename "$t") "*) continue ;; esac
    programs+=("$t")
  done
  for s in tests/suite_*.sh; do
    [ -f "$s" ] || continue
    [ "$QUICK" = 1 ] && case $QUICK_SUITES in *" $(basename "$s" .sh) "*) ;; *) continue ;; esac
    programs+=("$s")
  done
fi
names=(); cmds=(); solo=(); solo_cmds=()
for p in "${programs[@]}"; do
  case $p in
    *.sh) name=$(basename "$p" .sh); cmd="bash $p" ;;
    *) name=$(basename "$p"); cmd=$p ;;
  esac
  case $SOLO in *" $name "*) solo+=("$name"); solo_cmds+=("$cmd"); continue;; esac
  names+=("$name"); cmds+=("$cmd")
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
for i in "${!solo[@]}"; do
  rm -f "$log/${solo[$i]}.res"
  # shellcheck disable=SC2086
  run "${solo[$i]}" ${solo_cmds[$i]}
  report "${solo[$i]}"
done
echo "----"
echo "$passed passed, $fail failed in $(( $(date +%s) - t_start )) s"
[ $fail -eq 0 ] || { echo "failed: ${failed_list[*]}"; exit 1; }
