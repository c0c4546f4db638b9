#!/usr/bin/env bash
# suite_layers.sh — the tree reads as the pipeline (tests/check_layers.sh)
# and the check is not blind: a copy of the tree with one include planted
# that runs back up the pipeline, one circle within a stage, one kernel
# that includes the library and one library file that includes a test
# generator must each fail it, naming the file.
set -u
cd "$(dirname "$0")/.."
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

if out=$(bash tests/check_layers.sh 2>&1); then ok "$out"; else bad "the tree breaks its layers:"; echo "$out"; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
copy() { rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -r src runtime cli tests "$tmp/t/"; }
# plant FILE LINE-TEXT EXPECTED-SUBSTRING WHAT
plant() {
  copy
  printf '%s\n' "$2" >> "$tmp/t/$1"
  if out=$(bash tests/check_layers.sh "$tmp/t" 2>&1); then
    bad "$4 passed the check"
  elif grep -qF -- "$3" <<<"$out"; then ok "$4 fails the check: $(grep -F -- "$3" <<<"$out" | head -1)"
  else bad "$4 failed, but without naming it ($3):"; echo "$out"; fi
}
plant src/read/model.c '#include "emit/emit.h"' 'src/read/model.c:' "a reader file that includes the emitter"
plant src/util/util.c '#include "util/diag.h"' 'circle:' "diag.c and util.c including each other"
plant runtime/kernels/ref/mpk_conv.c '#include "util/util.h"' 'runtime/kernels/ref/mpk_conv.c:' "a kernel that includes the library"
plant src/plan/plan.c '#include "synth.h"' 'test generator' "the library including a test generator"
plant cli/main.c '#include "plan/symbols.h"' 'cli/main.c:' "the CLI including an internal header"
exit $fail
