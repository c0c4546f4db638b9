#!/usr/bin/env bash
# bench/same_modules.sh OLD NEW [TARGETS] [PLANNERS]: do two memplan
# binaries write the same modules?  For a change meant to make memplan
# faster and nothing else.  Every fixture and held-out network of mkmodel
# (the 224x224 ones left out unless MODELS_224=1: the old binary may take
# minutes on them) is converted by both with memory.in_place and
# memory.patch auto on one 64 MiB bank, for each target (default "generic
# cortex-m55") and planner (default "greedy"), --allow-unsupported; the
# module folders (sources, headers, kernels, residency report) and the
# printed summaries must be byte for byte the same.  Prints one line per
# difference and a count; exits 1 when any differ.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_MEMPLAN NEW_MEMPLAN [TARGETS] [PLANNERS]" >&2; exit 2; }
cd "$(dirname "$0")/.."
old=$(readlink -f "$1") new=$(readlink -f "$2")
targets=${3:-generic cortex-m55} planners=${4:-greedy}
make -s build/release/mkmodel >&2 || exit 2
MK=$PWD/build/release/mkmodel
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/models"
for n in $("$MK" --list); do "$MK" fixture "$n" "$tmp/models/$n.tflite" 2>/dev/null; done
for n in $("$MK" --list-nets); do
  case $n in *_224*) [ "${MODELS_224:-0}" = 1 ] || continue ;; esac
  "$MK" fixture "$n" "$tmp/models/net_$n.tflite"
done
# run BIN DIR: convert every case into DIR (paths relative to it, so the
# two binaries' summaries name the same folders)
run() {
  mkdir -p "$2"
  (cd "$2" && for f in "$tmp"/models/*.tflite; do
     m=$(basename "$f" .tflite)
     for t in $targets; do for p in $planners; do
       c="$m-$t-$p"
       "$1" convert --quiet --model.path "$f" --module.path "$c" --module.prefix fx \
         --module.target "$t" --memory.planner "$p" --memory.in_place=true --memory.patch=auto \
         --memory.dump_residency_json=true --allow-unsupported --platform.name one_bank \
         --platform.memories.sram 64MiB --platform.memories.mram 64MiB > "$c.log" 2>&1
       echo "exit $?" >> "$c.log"
       sed -i "s#$tmp/models/##g" "$c.log"
     done; done
   done)
}
run "$old" "$tmp/old"
run "$new" "$tmp/new"
n=$(find "$tmp/old" -name '*.log' | wc -l) bad=0
for l in "$tmp"/old/*.log; do
  c=$(basename "$l" .log) same=1
  cmp -s "$l" "$tmp/new/$c.log" || same=0
  if [ -d "$tmp/old/$c" ] || [ -d "$tmp/new/$c" ]; then
    diff -r -q "$tmp/old/$c" "$tmp/new/$c" > /dev/null 2>&1 || same=0
  fi
  [ $same = 1 ] || { echo "differ: $c"; bad=$((bad + 1)); }
done
echo "$n cases, $bad differ"
[ $bad = 0 ]
