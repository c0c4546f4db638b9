#!/usr/bin/env bash
# Run the whole test suite: every unit-test binary, then every suite script
# (tests/suite_*.sh).  Called by `make check` with MODE=asan.  Prints one line
# per test program as it finishes, with its seconds and CPU seconds, and a
# summary; exits non-zero when anything failed.
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
# machine), the longest first (the last run's seconds, else LONG below).
# The suites that already spread their own builds and emulator runs over
# $JOBS jobs (SOLO below) start first, one at a time, each beside
# TEST_JOBS-1 other programs, which keep busy the core its serial steps
# leave idle.  Every program writes its own temporary folder, so none sees
# another's files.  TEST_JOBS=1 runs everything one by one, in order, the
# SOLO suites last.
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
fail=0; passed=0; failed_list=(); t_start=$(date +%s); cpu_total=0

# run NAME CMD...: the program's output goes to its log, its exit status,
# seconds and CPU seconds (user + system of it and what it waited for: the
# same on a loaded machine) to NAME.res once it is done
run() {
  local name=$1 start rc=0 cpu
  shift
  start=$(date +%s)
  "$@" >"$log/$name.log" 2>&1 || rc=$?
  times > "$log/$name.times"  # not in a pipe: a subshell's children are not the program
  cpu=$(awk 'NR == 2 { for (i = 1; i <= NF; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
                       printf "%d", t + 0.5 }' "$log/$name.times")
  echo "$rc $(( $(date +%s) - start )) $cpu" > "$log/$name.res"
}

# report NAME: one line, and the log's tail on failure
report() {
  local name=$1 rc secs cpu skipped=""
  read -r rc secs cpu < "$log/$name.res"
  cpu=${cpu:-0}; cpu_total=$((cpu_total + cpu))
  [ -n "${CI:-}" ] && skipped=$(grep -h '^NOTICE' "$log/$name.log" | sort -u)
  if [ "$rc" = 0 ] && [ -n "$skipped" ]; then
    fail=$((fail+1)); failed_list+=("$name")
    printf 'FAIL  %-32s skipped a check, which CI does not allow (log: %s)\n' "$name" "$log/$name.log"
  elif [ "$rc" = 0 ]; then
    passed=$((passed+1)); printf 'PASS  %-32s %4ss  cpu %4ss\n' "$name" "$secs" "$cpu"
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
# The order: with TEST_JOBS=1 as listed, the SOLO suites last.  Otherwise
# the longest first, by each program's seconds in the last run (its .res
# in the log folder), else by its place in LONG (the ones known to take
# minutes), else as listed; the SOLO suites before the others.
LONG=" suite_conformance suite_emit_proof suite_rewrite suite_profile suite_mutation suite_shared_scratch"
LONG+=" suite_report_html suite_module_tables suite_setup suite_hostile test_golden test_planners "
expect() { # NAME: the seconds it is expected to take, for the order
  local rc secs rank
  if [ -f "$log/$1.res" ] && read -r rc secs _ < "$log/$1.res" && [ -n "$secs" ]; then echo "$secs"; return; fi
  case $LONG in
    *" $1 "*) rank=${LONG%%" $1 "*}; rank=${rank//[^ ]/}; echo $((100000 - ${#rank})) ;;
    *) echo 0 ;;
  esac
}
names=(); cmds=(); solo=(); order=()
for p in "${programs[@]}"; do
  case $p in
    *.sh) name=$(basename "$p" .sh); cmd="bash $p" ;;
    *) name=$(basename "$p"); cmd=$p ;;
  esac
  case $SOLO in *" $name "*) solo+=("$name");; esac
  names+=("$name"); cmds+=("$cmd")
done
is_solo() { case " ${solo[*]} " in *" $1 "*) return 0;; esac; return 1; }
for i in "${!names[@]}"; do
  if [ "$TEST_JOBS" -le 1 ]; then key=$(is_solo "${names[$i]}" && echo 0 || echo 1)
  else key=$(( $(is_solo "${names[$i]}" && echo 1000000 || echo 0) + $(expect "${names[$i]}") )); fi
  order+=("$key $i")
done
mapfile -t order < <(printf '%s\n' "${order[@]}" | sort -k1,1nr -k2,2n | cut -d' ' -f2)

# the pool: at most TEST_JOBS at once, reported as they finish.  A SOLO
# suite runs with TEST_JOBS-1 others beside it (one of its own steps at a
# time is serial; the others keep that core busy), one SOLO suite at a
# time; with TEST_JOBS=1 it runs alone, as every program then does.
pending=(); solo_running=""
reap() { # report every pending program that has finished
  local keep=() n
  for n in "${pending[@]}"; do
    if [ -f "$log/$n.res" ]; then report "$n"; [ "$n" = "$solo_running" ] && solo_running=""
    else keep+=("$n"); fi
  done
  pending=("${keep[@]}")
}
for i in "${order[@]}"; do rm -f "$log/${names[$i]}.res"; done
queue=("${order[@]}")
while [ ${#queue[@]} -gt 0 ]; do
  while [ "$(jobs -rp | wc -l)" -ge "$TEST_JOBS" ]; do wait -n 2>/dev/null || true; reap; done
  # the first program of the queue that may start: a SOLO suite waits for
  # the one running
  pick=-1
  for k in "${!queue[@]}"; do
    i=${queue[$k]}
    is_solo "${names[$i]}" && [ -n "$solo_running" ] && continue
    pick=$k; break
  done
  if [ $pick = -1 ]; then wait -n 2>/dev/null || true; reap; continue; fi
  i=${queue[$pick]}
  queue=("${queue[@]:0:$pick}" "${queue[@]:$((pick + 1))}")
  is_solo "${names[$i]}" && solo_running=${names[$i]}
  # shellcheck disable=SC2086 # a suite's command is "bash FILE"
  run "${names[$i]}" ${cmds[$i]} &
  pending+=("${names[$i]}")
done
wait
reap
echo "----"
echo "$passed passed, $fail failed in $(( $(date +%s) - t_start )) s (cpu $cpu_total s)"
[ $fail -eq 0 ] || { echo "failed: ${failed_list[*]}"; exit 1; }
