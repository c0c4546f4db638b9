#!/usr/bin/env bash
# suite_cli_progress.sh — progress of long planner runs on stderr.
#
# A dense random problem (2000 buffers over 50 time steps, well above its
# lower bound) keeps exact and hill_climb busy for their whole time limit.
# Checked:
#   - --progress prints, at least once a second after the first, lines of
#     the form "memplan: PLANNER T s: best H B, bound L B (P % above),
#     N moves[, M nodes]" and a last "... finished in T s: ..." line, with
#     figures that never get worse;
#   - without --progress, on a stderr that is not a terminal, nothing;
#   - --quiet wins over --progress;
#   - on a terminal (script(1) gives one), the default prints, rewriting
#     one line with carriage returns;
#   - a run shorter than a second prints nothing even with --progress;
#   - solve --verbose says what the run did;
#   - `plan --progress` on a model is accepted (it plans in well under a
#     second, so it prints nothing).
# Progress never changes standard output's format.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
case $MEMPLAN in /*) ;; *) MEMPLAN=$ROOT/$MEMPLAN ;; esac
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=$((fail+1)); }

RANDOM=42
{
  echo "id,lower,upper,size"
  for i in $(seq 0 1999); do
    l=$((RANDOM % 50))
    echo "b$i,$l,$((l + 1 + RANDOM % 30)),$((16 * (1 + RANDOM % 1024)))"
  done
} > "$tmp/dense.csv"

line_re='^memplan: (exact|hill_climb) (finished in )?[0-9]+\.[0-9] s: best [0-9]+ B, bound [0-9]+ B \(([0-9]+\.[0-9]{2} % above|optimal)\)(, [0-9]+ moves)?(, [0-9]+ nodes)?$'

# check_lines FILE PLANNER: every line is a progress line of PLANNER, at
# least one report and the final one, best heights never rise, work never
# falls
check_lines() {
  local f=$1 pl=$2 n
  n=$(wc -l < "$f")
  [ "$n" -ge 2 ] || { bad "$pl: $n progress lines, want at least 2"; cat "$f"; return; }
  if grep -Evq "$line_re" "$f"; then bad "$pl: a line is not a progress line:"; grep -Ev "$line_re" "$f"; fi
  grep -Ev "^memplan: $pl " "$f" && bad "$pl: a line names another planner"
  tail -n 1 "$f" | grep -q "^memplan: $pl finished in " || bad "$pl: no final line"
  [ "$(grep -c 'finished in' "$f")" = 1 ] || bad "$pl: the final line is not the only one of its kind"
  awk -v pl="$pl" '
    { best = $0; sub(/.*best /, "", best); sub(/ B.*/, "", best)
      work = 0; if (match($0, /[0-9]+ moves/)) work += substr($0, RSTART, RLENGTH) + 0
      if (match($0, /[0-9]+ nodes/)) work += substr($0, RSTART, RLENGTH) + 0
      if (NR > 1 && (best + 0 > last_best || work < last_work)) { print pl ": line " NR " got worse"; bad = 1 }
      last_best = best + 0; last_work = work }
    END { exit bad }' "$f" || bad "$pl: figures went backwards"
}

# exact, forced
"$MEMPLAN" solve "$tmp/dense.csv" --planner exact --planner-options '{"time_limit_ms": 2500}' \
  --progress >"$tmp/out.csv" 2>"$tmp/err.txt" || bad "exact --progress: exit $?"
check_lines "$tmp/err.txt" exact
grep -q '^# height=[0-9]* lower_bound=[0-9]* planner=exact$' "$tmp/out.csv" || bad "exact: no height line"
echo "ok   exact --progress ($(wc -l < "$tmp/err.txt") lines)"

# hill_climb, forced
"$MEMPLAN" solve "$tmp/dense.csv" --planner hill_climb \
  --planner-options '{"time_limit_ms": 2500, "iterations": 100000000}' --progress \
  >"$tmp/out.csv" 2>"$tmp/err.txt" || bad "hill_climb --progress: exit $?"
check_lines "$tmp/err.txt" hill_climb
grep -q ' moves$' "$tmp/err.txt" || bad "hill_climb: no moves counted"
echo "ok   hill_climb --progress"

# not a terminal, no flag: silent; --quiet wins over --progress
"$MEMPLAN" solve "$tmp/dense.csv" --planner exact --planner-options '{"time_limit_ms": 1500}' \
  >"$tmp/out.csv" 2>"$tmp/err.txt" || bad "exact: exit $?"
[ -s "$tmp/err.txt" ] && { bad "progress printed to a file without --progress:"; cat "$tmp/err.txt"; }
"$MEMPLAN" solve "$tmp/dense.csv" --planner exact --planner-options '{"time_limit_ms": 1500}' \
  --progress --quiet >"$tmp/out.csv" 2>"$tmp/err.txt" || bad "exact --quiet: exit $?"
[ -s "$tmp/err.txt" ] && { bad "--quiet printed:"; cat "$tmp/err.txt"; }
echo "ok   silent unless asked"

# a terminal: the default prints, one line rewritten in place
if command -v script >/dev/null; then
  script -qc "'$MEMPLAN' solve '$tmp/dense.csv' --planner exact --planner-options '{\"time_limit_ms\": 1800}' -o '$tmp/tty.csv'" \
    /dev/null >"$tmp/tty.txt" 2>&1
  tr '\r' '\n' < "$tmp/tty.txt" | sed 's/\x1b\[K//g' | grep '^memplan: ' > "$tmp/tty_lines.txt"
  grep -q $'\r' "$tmp/tty.txt" || bad "terminal: no carriage return"
  check_lines "$tmp/tty_lines.txt" exact
  echo "ok   terminal"
else
  echo "NOTICE: script(1) is absent; the terminal case is not checked"
fi

# a short run prints nothing, even forced: greedy on 20 buffers takes well
# under a millisecond, so even a loaded machine keeps it under the first
# report's second
{ echo "id,lower,upper,size"; for i in $(seq 0 19); do echo "s$i,$i,$((i + 2)),64"; done; } > "$tmp/small.csv"
"$MEMPLAN" solve "$tmp/small.csv" --planner greedy --progress >"$tmp/out.csv" 2>"$tmp/err.txt" ||
  bad "greedy: exit $?"
[ -s "$tmp/err.txt" ] && { bad "a short run printed:"; cat "$tmp/err.txt"; }
echo "ok   short runs stay silent"

# solve --verbose
"$MEMPLAN" solve "$tmp/dense.csv" --planner greedy_by_size --verbose >"$tmp/out.csv" 2>"$tmp/err.txt" ||
  bad "--verbose: exit $?"
grep -Eq '^memplan solve: greedy_by_size on 2000 buffers: height [0-9]+ B, lower bound [0-9]+ B \([0-9]\.[0-9]{4} x\), 1 passes, [0-9]+\.[0-9]{3} s$' \
  "$tmp/err.txt" || { bad "--verbose line:"; cat "$tmp/err.txt"; }
echo "ok   solve --verbose"

# plan accepts --progress
if [ -f examples/kws/kws.tflite ]; then
  "$MEMPLAN" plan examples/kws/kws.tflite --progress >"$tmp/plan.txt" 2>"$tmp/err.txt" ||
    bad "plan --progress: exit $?"
  grep -v '^memplan: warning: ' "$tmp/err.txt" | grep -q '^memplan: ' &&
    { bad "plan printed progress:"; cat "$tmp/err.txt"; }
  echo "ok   plan --progress"
fi

[ $fail = 0 ] || { echo "$fail failed"; exit 1; }
echo "all progress checks passed"
