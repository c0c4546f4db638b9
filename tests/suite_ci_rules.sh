#!/usr/bin/env bash
# suite_ci_rules.sh — in CI, a skipped check is a failure.  tests/run.sh
# fails a program that prints a NOTICE (a tool or a data folder missing)
# when CI is set, and only then; and the real suites do print one when what
# they need is missing: the Cortex-M55 example run with cmake taken off the
# PATH must fail in CI, naming cmake.
set -u
cd "$(dirname "$0")/.."
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export MODE=${MODE:-asan} TEST_LOGS=$tmp/logs

printf '#!/usr/bin/env bash\necho "NOTICE: frobnicate is absent: nothing checked"\nexit 0\n' > "$tmp/suite_skips.sh"
printf '#!/usr/bin/env bash\necho "all checked"\nexit 0\n' > "$tmp/suite_checks.sh"
if out=$(CI=1 bash tests/run.sh "$tmp/suite_skips.sh" 2>&1); then
  bad "CI=1: a suite that skipped a check passed: $out"
elif grep -q 'FAIL  suite_skips .*skipped a check' <<<"$out" && grep -q 'frobnicate is absent' <<<"$out"; then
  ok "CI=1: a suite that skips a check fails, naming what was missing"
else bad "CI=1: the failure does not say why: $out"; fi
if out=$(env -u CI bash tests/run.sh "$tmp/suite_skips.sh" 2>&1); then
  ok "outside CI the same skip is a notice"
else bad "outside CI a notice failed the run: $out"; fi
if out=$(CI=1 bash tests/run.sh "$tmp/suite_checks.sh" 2>&1); then
  ok "CI=1: a suite that checks everything passes"
else bad "CI=1: a suite without notices failed: $out"; fi

# the real thing: a PATH without cmake
mkdir -p "$tmp/bin"
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  for f in "$d"/*; do
    b=$(basename "$f")
    [ "$b" = cmake ] && continue
    [ -x "$f" ] && [ ! -e "$tmp/bin/$b" ] && ln -s "$f" "$tmp/bin/$b"
  done
done
if out=$(CI=1 PATH="$tmp/bin" bash tests/run.sh tests/suite_example_m55.sh 2>&1); then
  bad "CI=1 without cmake: the Cortex-M55 example suite passed"
elif grep -q 'cmake' <<<"$out"; then
  ok "CI=1 without cmake: the Cortex-M55 example suite fails, naming cmake"
else bad "CI=1 without cmake: the failure does not name cmake: $out"; fi
exit $fail
