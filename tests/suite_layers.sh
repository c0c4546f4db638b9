#!/usr/bin/env bash
# suite_layers.sh — the tree reads as the pipeline (tests/check_layers.sh)
# and the check is not blind: a copy of the tree with one broken rule
# planted must fail it, naming the file, for every rule the check has (an
# include back up the pipeline, a folder that is no stage, an include
# without its stage or of a header that does not exist, a circle within a
# stage, a kernel that includes the library, the library including a test
# generator, the CLI including an internal header, the families' header
# included outside the dispatcher and the families, and a file below the
# others of its stage including one above it).
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
plant src/read/model.c '#include "lower.h"' 'without its stage folder' "an include without its stage folder"
plant src/read/model.c '#include "read/nothing.h"' 'which does not exist' "an include of a header that does not exist"
plant src/read/model.c '#include "mpk_nothing.h"' 'not a kernel header' "an include of a kernel header that does not exist"
plant src/read/model.c '#include "cm/../../cli/cli.h"' 'not a stage header' "an include of a file outside the stages"
# a folder of src/ that is no stage
copy; mkdir -p "$tmp/t/src/misc"; printf '/* x */\n' > "$tmp/t/src/misc/x.c"
if out=$(bash tests/check_layers.sh "$tmp/t" 2>&1); then bad "a folder that is no stage passed the check"
elif grep -q 'src/misc/x.c: folder src/misc is not a stage' <<<"$out"; then ok "a folder that is no stage fails the check"
else bad "a folder that is no stage failed, but without naming it:"; echo "$out"; fi
plant src/graph/kernels.c '#include "lower/families.h"' 'src/graph/kernels.c:' "a file outside the dispatcher and the families including lower/families.h"
plant src/lower/common.c '#include "lower/families.h"' 'src/lower/common.c:' "the families' helpers including the families"
plant src/lower/common.h '#include "lower/families.h"' 'src/lower/common.h:' "the families' helpers' header including the families"
plant src/graph/storage.c '#include "graph/rewrite.h"' 'src/graph/storage.c:' "the graph's storage including a pass"
exit $fail
