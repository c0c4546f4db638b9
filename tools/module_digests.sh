#!/usr/bin/env bash
# module_digests.sh MEMPLAN_BUILD OUT.txt — convert every corpus model
# (../shared/models, or $MEMPLAN_MODELS) and every held-out network and
# fixture memplan writes, with every planner, in place off and on, for the
# generic and cortex-m55 targets, and write one line per module: the case
# and the sha256 of every file the convert wrote (the residency JSON
# included).  Two builds whose OUT.txt are equal emit byte-identical
# modules; a refactor that must not change the output is checked with
#
#   tools/module_digests.sh build/release /tmp/before.txt   # old tree
#   tools/module_digests.sh build/release /tmp/after.txt    # new tree
#   cmp /tmp/before.txt /tmp/after.txt
set -u
build=$(cd "$1" && pwd); out=$2
models=$(cd "${MEMPLAN_MODELS:-$(dirname "$0")/../../shared/models}" 2>/dev/null && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
list=()
if [ -d "$models" ]; then
  for m in "$models"/*.tflite; do list+=("$m"); done
fi
for n in $("$build/mkmodel" --list-nets) $("$build/mkmodel" --list); do
  "$build/mkmodel" fixture "$n" "$work/$n.tflite" >/dev/null 2>&1 && list+=("$work/$n.tflite")
done
: > "$out"
for m in "${list[@]}"; do
  name=$(basename "$m" .tflite)
  for planner in greedy greedy_by_size hill_climb exact; do
    for ip in false true; do
      for target in generic cortex-m55; do
        d="$work/o"; rm -rf "$d"
        cat > "$work/c.yaml" <<YAML
model:  {path: $m}
module: {path: $d, prefix: m, target: $target}
platform: {name: apollo510_evb}
memory: {planner: $planner, in_place: $ip, dump_residency_json: true}
verbose: 0
YAML
        rc=0; "$build/memplan" convert --path "$work/c.yaml" --allow-unsupported >/dev/null 2>"$work/err" || rc=$?
        sums=$( [ -d "$d" ] && cd "$d" && find . -type f | LC_ALL=C sort | xargs -r sha256sum | sha256sum | cut -c1-16)
        echo "$name $planner in_place=$ip $target rc=$rc ${sums:-none}" >> "$out"
      done
    done
  done
done
echo "$(wc -l < "$out") modules, $(grep -vc ' rc=0 ' "$out") refused" >&2
