#!/usr/bin/env bash
# suite_bench_smoke.sh — the benchmark program at tiny sizes (seconds): it
# runs every section (corpus, in place, memory.patch, scale in forked children,
# hill_climb's rate, hard instances (rectangles, coarse sizes, a time grid), and a folder of instances in the
# format of MiniMalloc's benchmarks) and writes a page with every table.  The numbers are not
# checked: this is the benchmark's smoke test, not a benchmark.  Then
# --only in-place on that page: only that section and its targets rows
# change.  Last, bench/speed_rows.sh copies the kernels' speed rows in.
set -u
cd "$(dirname "$0")/.."
BUILD=${MEMPLAN_BUILD:-build/${MODE:-asan}}
BENCH=$BUILD/bench
[ -x "$BENCH" ] || { echo "no bench binary at $BENCH"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # pattern description
  if grep -q -- "$1" "$tmp/RESULTS.md"; then echo "ok   $2"; else echo "FAIL $2 (no '$1')"; fail=1; fi
}
# an instance in the form of MiniMalloc's benchmark files, NAME.CAPACITY.csv
mkdir "$tmp/mm"
printf 'buffer,start,end,size\na,0,2,16\nb,1,3,16\nc,2,4,16\nd,0,4,16\n' >"$tmp/mm/tiny.48.csv"
if ! "$BENCH" --smoke --minimalloc "$tmp/mm" --out "$tmp/RESULTS.md" 2>"$tmp/stderr"; then
  echo "FAIL bench --smoke exited with an error"; cat "$tmp/stderr"; exit 1
fi
check '^- machine: ' 'machine line'
check '^- compiler: ' 'compiler line'
check '^- date: ' 'date line'
check 'shared and noisy' 'noise warning'
check '^## Targets' 'targets section'
check 'hill_climb reaches the lower bound on every corpus model | 1 of 1 | \*\*PASS\*\*' 'corpus target row'
check '^## Corpus' 'corpus section'
check '^| kws.tflite | 13 | 13 | 16000 |' 'example model row'
check '^## In place (memory.in_place)' 'in-place section'
check '^| kws.tflite | 16000 | [0-9]* | [0-9]* (' 'in-place example row'
check '| in place: hill_climb at or below the tensor-level bound on every model | 1 of 1 | \*\*PASS\*\*' 'in-place target row'
check '^## Patch-based inference (memory.patch)' 'patch section'
check '^| kws.tflite | 49x10 | 16000 | [0-9]* | ' 'patch example row'
check '| patch: no model above its in-place plan with memory.patch auto (greedy) | 1 of 1 | \*\*PASS\*\*' 'patch target row'
check '| patch: MobileNetV2 224x224 int8 scratch, input included, <= 163 840 B | not measured' 'MobileNetV2 patch target row without the network'
check '^## Scale' 'scale section'
for f in chain cnn transformer random random_wide; do
  for p in greedy greedy_by_size hill_climb 'hill_climb, limited' exact 'exact, default'; do
    check "^| $f | 1000 | $p |" "scale row $f $p"
  done
done
check '| chain | 1000 | greedy | - | [0-9]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]*x / 10x |' 'growth column'
check '^| random | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* |$' 'growth exponents of the random family'
check '^| random_wide | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* | [0-9.-]* |$' 'growth exponents of the random_wide family'
check 'every run with time_limit_ms t returns within t + 10 % + 50 ms .* runs over' 'time limit target row'
check '^## hill_climb rate at 100 buffers' 'rate section'
check '^## Hard instances' 'hard section'
check '^| hill_climb 10x | ' 'hard row hill_climb 10x'
check '^| exact | time_limit_ms 200 | ' 'hard row exact'
check '^## Coarse hard instances' 'coarse hard section'
check '^| exact, capacity H | capacity H, time_limit_ms 200 | ' 'coarse hard row exact with capacity'
check 'exact with capacity H packs every coarse hard instance .* | \*\*PASS\*\*' 'coarse hard target row'
check '^## Grid hard instances' 'grid hard section'
check '^| exact, capacity H | capacity H, time_limit_ms 200 | ' 'grid hard row'
check 'on the grid hard instances .* | [0-9]* of 3 | measured' 'grid hard target row'
check "^## MiniMalloc's challenging instances" 'MiniMalloc instances section'
check '^| tiny | 4 | 48 | 48 | 48 | fits | ' 'MiniMalloc instance row'
check "exact with MiniMalloc's capacity answers each of its challenging instances | 1 of 1 | \*\*PASS\*\*" 'MiniMalloc target row'
# without --out the page goes to standard output; a folder without instances
# is said to be missing, on stderr and on the page
"$BENCH" --smoke --sizes 100 --runs 1 --minimalloc "$tmp/none" >"$tmp/stdout.md" 2>"$tmp/stderr2"
grep -q '^## Hard instances' "$tmp/stdout.md" && echo "ok   page on stdout" || { echo "FAIL page on stdout"; fail=1; }
grep -q '^Not measured: the instances are not part of the repository' "$tmp/stdout.md" &&
  grep -q "NOTICE: MiniMalloc's challenging instances not found" "$tmp/stderr2" &&
  echo "ok   missing MiniMalloc folder noticed" || { echo "FAIL missing MiniMalloc folder"; fail=1; }
# --only: the in-place section and its targets rows measured again, every
# other part of the page kept byte for byte, and the header saying so
cp "$tmp/RESULTS.md" "$tmp/full.md"
# the rows to be replaced, made recognisable, and a kept section's text
sed -i 's/^| in place: hill_climb at or below the tensor-level bound on every model | 1 of 1 |/| in place: hill_climb at or below the tensor-level bound on every model | OLD |/; s/^## Scale$/## Scale\nKEPT LINE/' "$tmp/RESULTS.md"
cp "$tmp/RESULTS.md" "$tmp/before_only.md"
if "$BENCH" --smoke --only in-place --out "$tmp/RESULTS.md" 2>"$tmp/stderr3"; then
  check '| in place: hill_climb at or below the tensor-level bound on every model | 1 of 1 | \*\*PASS\*\*' '--only: in-place target row measured again'
  check '^KEPT LINE$' '--only: other sections kept'
  check '^- .*: a run of some sections only (`--only in-place`' '--only: header line'
  check '^\*Regenerated .* (`--only in-place`)' '--only: section mark'
  grep -q 'bench: scale' "$tmp/stderr3" && { echo "FAIL --only ran the scale section"; fail=1; } || echo "ok   --only runs only what it names"
  diff <(grep -v '^| in place:\|^| kws.tflite | 16000\|^\*Regenerated\|^$\|: a run of some sections only\|^Each model through' "$tmp/before_only.md") \
       <(grep -v '^| in place:\|^| kws.tflite | 16000\|^\*Regenerated\|^$\|: a run of some sections only\|^Each model through' "$tmp/RESULTS.md") >"$tmp/only.diff" &&
    echo "ok   --only keeps every other line" || { echo "FAIL --only changed other lines:"; head -20 "$tmp/only.diff"; fail=1; }
else
  echo "FAIL bench --only exited with an error"; cat "$tmp/stderr3"; fail=1
fi
"$BENCH" --smoke --only in-place,nonsense --out "$tmp/RESULTS.md" 2>/dev/null; rc=$?
[ $rc -eq 2 ] && echo "ok   --only refuses an unknown section" || { echo "FAIL --only unknown section gave $rc"; fail=1; }
"$BENCH" --smoke --only in-place 2>/dev/null >/dev/null; rc=$?
[ $rc -eq 2 ] && echo "ok   --only needs --out" || { echo "FAIL --only without --out gave $rc"; fail=1; }
# bench/speed_rows.sh: the kernels' rows of a KERNELS.md's Speed targets
# table go at the end of the page's targets table, once however often it
# runs, saying where they come from; the rest of the page is kept
printf '# k\n\nGenerated on 2026-01-02 at commit abc1234.\n\n## Speed targets\n\n| target | measured | |\n|---|---|---|\n| kernels: one | 3 of 4 | **FAIL** |\n\n## Next\n| kernels: not a target |\n' > "$tmp/K.md"
cp "$tmp/RESULTS.md" "$tmp/R0.md"
if bench/speed_rows.sh "$tmp/K.md" "$tmp/RESULTS.md" && bench/speed_rows.sh "$tmp/K.md" "$tmp/RESULTS.md"; then
  [ "$(grep -c '^| kernels:' "$tmp/RESULTS.md")" = 1 ] &&
    grep -q '^| kernels: one | 3 of 4 (docs/KERNELS.md of 2026-01-02, commit abc1234) | \*\*FAIL\*\* |$' "$tmp/RESULTS.md" &&
    sed -n '/^## Targets/,/^## /p' "$tmp/RESULTS.md" | grep -v '^## ' | grep '^|' | tail -n 1 | grep -q '^| kernels: one' &&
    diff <(grep -v '^| kernels:' "$tmp/R0.md") <(grep -v '^| kernels:' "$tmp/RESULTS.md") >/dev/null &&
    echo "ok   speed_rows: the kernels' rows copied once, the rest kept" ||
    { echo "FAIL speed_rows: the page is not as expected"; sed -n '/^## Targets/,/^## C/p' "$tmp/RESULTS.md"; fail=1; }
else
  echo "FAIL speed_rows exited with an error"; fail=1
fi
printf '# k\n' > "$tmp/K2.md"
bench/speed_rows.sh "$tmp/K2.md" "$tmp/RESULTS.md" 2>/dev/null && { echo "FAIL speed_rows took a page without rows"; fail=1; } ||
  echo "ok   speed_rows refuses a KERNELS.md without a Speed targets table"
# a bad argument is a usage error
"$BENCH" --frobnicate 2>/dev/null; rc=$?
[ $rc -eq 2 ] && echo "ok   usage error" || { echo "FAIL usage error gave $rc"; fail=1; }
exit $fail
