#!/usr/bin/env bash
# fuzz/run_config.sh [SECONDS] — build and run the configuration fuzzer
# (fuzz/fuzz_config.c) with libFuzzer, ASan and UBSan.  Also reached as
# `FUZZ_SECONDS=600 ./fuzz/run.sh config`.
#
# The seed corpus is made from the repository's own configs (the bundled
# example and the CLI golden cases, with their command-line arguments after
# a "#--args--" line) plus a dictionary of the config's keys and values; the
# corpus grows in build/fuzz/corpus_config between runs.  A crash leaves
# its input in build/fuzz/ (crash-*, leak-*, timeout-*) and makes this
# script fail.  Default run: 60 seconds.
set -eu
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-${FUZZ_SECONDS:-60}}
OUT=build/fuzz
CORPUS=$OUT/corpus_config
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT" "$CORPUS"

echo "building $OUT/fuzz_config"
# The library goes into an archive, so that only what the target uses is
# linked (a file someone is still writing elsewhere in src/ does not stop
# the config fuzzer); a file that does not compile is skipped with a note.
FLAGS="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fno-sanitize-recover=all \
  -Iinclude -Isrc -Iruntime/kernels $(pkg-config --cflags yaml-0.1 jansson)"
OBJ=$OUT/obj_config
rm -rf "$OBJ"; mkdir -p "$OBJ"
for f in src/*/*.c; do
  o="$OBJ/$(echo "${f%.c}" | tr / _).o"
  # shellcheck disable=SC2086
  "$CC" $FLAGS -fsanitize=fuzzer-no-link,address,undefined -c "$f" -o "$o" 2>"$o.log" ||
    { echo "note: skipping $f (does not compile)"; rm -f "$o"; }
done
ar rcs "$OBJ/libmemplan_fuzz.a" "$OBJ"/*.o
# shellcheck disable=SC2086
"$CC" $FLAGS -fsanitize=fuzzer,address,undefined fuzz/fuzz_config.c "$OBJ/libmemplan_fuzz.a" \
  $(pkg-config --libs yaml-0.1 jansson) -lm -o "$OUT/fuzz_config"

# seeds
cp examples/kws/config.yaml "$CORPUS/seed_example.yaml"
for d in tests/cli/config/*/; do
  name=$(basename "$d")
  seed="$CORPUS/seed_$name"
  : > "$seed"
  [ -f "$d/config.yaml" ] && cat "$d/config.yaml" >> "$seed"
  if [ -f "$d/args" ]; then printf '\n#--args--\n' >> "$seed"; cat "$d/args" >> "$seed"; fi
done

DICT=$OUT/config.dict
cat > "$DICT" <<'DICT_END'
"model:"
"module:"
"platform:"
"memory:"
"verbose:"
"path:"
"subgraph:"
"name:"
"prefix:"
"memories:"
"min_alignment:"
"preferred_memory_order:"
"planner:"
"planner_options:"
"constraints:"
"tensors:"
"allocate_arenas:"
"auto_hydrate_constants:"
"dump_residency_json:"
"max_size:"
"arena_alignment:"
"type:"
"id:"
"attributes:"
"constant_destination_memory:"
"iterations:"
"seed:"
"max_stall_iterations:"
"greedy"
"greedy_by_size"
"hill_climb"
"exact"
"apollo510_evb"
"apollo4p_evb"
"dtcm"
"itcm"
"sram"
"psram"
"mram"
"scratch"
"persistent"
"constant"
"\"*\""
"KiB"
"MiB"
"null"
"true"
"- "
": "
"{"
"}"
"["
"]"
"&a"
"*a"
"---"
"!!str"
"\x0a#--args--\x0a"
"--memory.planner-options"
"--memory.tensors"
"--memory.constraints"
"--platform.memories.dtcm"
"--memory.no-allocate-arenas"
"--path"
DICT_END
# every key the schema knows, from the help text, so new keys are fuzzed too
make -s MODE=release build/release/memplan >/dev/null
build/release/memplan convert --help |
  sed -n 's/^  --\([a-z][a-z._-]*\)  .*/\1/p' | tr '.-' '\n_' | sort -u |
  sed 's/.*/"&:"/' >> "$DICT"
for b in $(build/release/memplan plan x.tflite --platform no_such_platform 2>&1 |
           sed -n 's/.*(built-in platforms: \([^;]*\);.*/\1/p' | sed 's/,\| and / /g'); do
  printf '"%s"\n' "$b" >> "$DICT"
done
printf '"%s"\n' generic cortex-m4 cortex-m7 cortex-m33 cortex-m55 caller arena >> "$DICT"
# a models: list and the other example configs
cat > "$CORPUS/seed_models.yaml" <<'YAML'
models:
  - {path: a.tflite, prefix: a}
  - {path: b.tflite, subgraph: 0, name: b, prefix: b}
module: {path: out, prefix: shared, target: cortex-m55, tables_memory: mram}
platform: {name: apollo510_evb}
memory: {in_place: true, io: caller, tensors: [{type: constant, attributes: {memory: mram}}]}
YAML
for c in examples/*/config*.yaml examples/*/*.yaml; do
  [ -f "$c" ] && cp "$c" "$CORPUS/seed_ex_$(echo "$c" | tr '/' '_')"
done

echo "fuzzing for $SECONDS_TO_RUN s"
"$OUT/fuzz_config" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -max_len=4096 \
  -dict="$DICT" -artifact_prefix="$OUT/" -print_final_stats=1 "$CORPUS"
