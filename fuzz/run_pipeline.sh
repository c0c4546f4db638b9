#!/usr/bin/env bash
# fuzz/run_pipeline.sh [SECONDS] — build and run the whole-pipeline fuzzer
# (fuzz/fuzz_pipeline.c: reader, graph, kernel preparation and lowering,
# planning, verification, reports and the module in memory) with
# libFuzzer, ASan and UBSan.  Also reached as `./fuzz/run.sh pipeline`.
#
# Seeds are the model fuzzer's: every fixture, the bundled example, random
# DAGs, and the models of ../shared/models when present (temporary copies,
# never put into the repository).  The corpus grows in
# build/fuzz/corpus_pipeline between runs.  A finding leaves its input in
# build/fuzz/ (crash-*, leak-*, timeout-*, oom-*) and makes this script
# fail; replay it with build/fuzz/fuzz_pipeline build/fuzz/crash-...
# Default run: 600 seconds.
set -eu
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-${FUZZ_SECONDS:-600}}
OUT=build/fuzz
CORPUS=$OUT/corpus_pipeline
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (install clang)" >&2; exit 2; }
mkdir -p "$OUT" "$CORPUS"

echo "fuzz: building $OUT/fuzz_pipeline"
FLAGS="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
  -fno-sanitize-recover=all -Iinclude -Isrc -Iruntime/kernels -Itests/support -Itests/support/gen \
  $(pkg-config --cflags yaml-0.1 jansson)"
OBJ=$OUT/obj_pipeline
rm -rf "$OBJ"; mkdir -p "$OBJ"
# the library and its kernels, plus the embedded runtime text the emitter copies
sh src/emit/runtime.sh runtime/kernels/*.h runtime/kernels/ref/*.c runtime/kernels/cm/*.h \
  runtime/kernels/cm/*.c > "$OBJ/emit_runtime.c"
for f in src/*/*.c runtime/kernels/ref/*.c runtime/kernels/cm/*.c "$OBJ/emit_runtime.c"; do
  o="$OBJ/$(echo "${f%.c}" | tr / _).o"
  # shellcheck disable=SC2086
  "$CC" $FLAGS -Wno-error -fsanitize=fuzzer-no-link,address,undefined -c "$f" -o "$o"
done
ar rcs "$OBJ/libmemplan_fuzz.a" "$OBJ"/*.o
# shellcheck disable=SC2086
"$CC" $FLAGS -fsanitize=fuzzer,address,undefined fuzz/fuzz_pipeline.c "$OBJ/libmemplan_fuzz.a" \
  $(pkg-config --libs yaml-0.1 jansson) -lm -o "$OUT/fuzz_pipeline"
echo "fuzz: building $OUT/mkmodel (seed writer)"
# shellcheck disable=SC2086
"$CC" $FLAGS tools/mkmodel.c tests/support/gen/fixtures.c tests/support/gen/tflite_writer.c "$OBJ/libmemplan_fuzz.a" \
  $(pkg-config --libs yaml-0.1 jansson) -lm -fsanitize=address,undefined -o "$OUT/mkmodel_pipeline"

SEEDS=$(mktemp -d)
trap 'rm -rf "$SEEDS"' EXIT
# shellcheck source=fuzz/lib.sh
. fuzz/lib.sh
fuzz_seeds "$OUT/mkmodel_pipeline" "$SEEDS" 1048576
fuzz_run fuzz_pipeline "$OUT/fuzz_pipeline" "$SECONDS_TO_RUN" -timeout=20 -rss_limit_mb=2048 \
  -max_len=1048576 -dict=fuzz/hostile.dict "$CORPUS" "$SEEDS"
echo "fuzz: corpus $(find "$CORPUS" -type f | wc -l) inputs"
