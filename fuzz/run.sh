#!/usr/bin/env bash
# fuzz/run.sh — build and run the model fuzzer (fuzz/fuzz_model.c: the
# .tflite reader and the graph analysis) with libFuzzer, ASan and UBSan.
# This is what `make fuzz` runs; it is not part of `make check`.
#
#   FUZZ_SECONDS=600 ./fuzz/run.sh     (600 s by default)
#
# Seeds: every fixture of tests/support/gen/fixtures.c, the bundled example,
# random DAGs and a few cut-down files, all written by memplan's own model
# writer (mkmodel, built here without sanitizers); plus, when
# ../shared/models exists, the real models in it, read at run time into a
# temporary folder that is deleted afterwards (they are never copied into
# the repository).  The corpus grows in build/fuzz/corpus_model between
# runs.  A finding leaves its input in build/fuzz/ (crash-*, leak-*,
# timeout-*, oom-*) and makes this script fail; replay one with
#   build/fuzz/fuzz_model build/fuzz/crash-...
set -eu
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
# `./fuzz/run.sh config` runs the configuration fuzzer instead (fuzz/run_config.sh).
if [ "${1:-}" = config ]; then exec ./fuzz/run_config.sh "$FUZZ_SECONDS"; fi
# `./fuzz/run.sh pipeline` runs the whole-pipeline fuzzer (fuzz/run_pipeline.sh).
if [ "${1:-}" = pipeline ]; then exec ./fuzz/run_pipeline.sh "$FUZZ_SECONDS"; fi
OUT=build/fuzz
CORPUS=$OUT/corpus_model
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (install clang)" >&2; exit 2; }
mkdir -p "$OUT" "$CORPUS"

# The target needs only the reader and the graph analysis: build just those,
# so a file being written elsewhere in src/ cannot stop the fuzzer.
LIB_SRCS="src/read/model.c src/read/validate.c src/read/flatbuf.c src/graph/graph.c src/read/opnames.c src/util/util.c src/util/diag.c"
FLAGS="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror
  -fno-sanitize-recover=all -Iinclude -Isrc -Iruntime/kernels -Itests/support -Itests/support/gen"
echo "fuzz: building $OUT/fuzz_model"
# shellcheck disable=SC2086
"$CC" $FLAGS -fsanitize=fuzzer,address,undefined fuzz/fuzz_model.c $LIB_SRCS -lm \
  -o "$OUT/fuzz_model"
echo "fuzz: building $OUT/mkmodel (seed writer)"
# shellcheck disable=SC2086
"$CC" $FLAGS tools/mkmodel.c tests/support/gen/fixtures.c tests/support/gen/tflite_writer.c $LIB_SRCS -lm \
  -o "$OUT/mkmodel"

SEEDS=$(mktemp -d)
trap 'rm -rf "$SEEDS"' EXIT
# shellcheck source=fuzz/lib.sh
. fuzz/lib.sh
fuzz_seeds "$OUT/mkmodel" "$SEEDS"

DICT=$OUT/model.dict
cat > "$DICT" <<'DICT_END'
"TFL3"
"\x03\x00\x00\x00"
"\x00\x00\x00\x00"
"\xff\xff\xff\xff"
"\x04\x00"
"\x08\x00"
DICT_END

fuzz_run fuzz_model "$OUT/fuzz_model" "$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
  -dict="$DICT" "$CORPUS" "$SEEDS"
echo "fuzz: corpus $(find "$CORPUS" -type f | wc -l) inputs"
