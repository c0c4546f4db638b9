#!/usr/bin/env bash
# Profile every corpus model that has golden inputs with `memplan profile`
# on the emulated Cortex-M55 (mps3-an547) and Cortex-M4F (mps2-an386), once
# per memory.in_place mode, and the models with SVDF or LSTM operators once
# more on the Cortex-M55 for module.target generic; one JSON per run
# (`memplan profile --json`) in OUT, named MODEL.BOARD.in_place-MODE.json and
# MODEL.mps3-an547.generic.json.  docs/speed_md.py tabulates them.  A mode
# that writes the same module as one already profiled (memory.in_place true
# and size do, and speed and size on most models) is not run again: the
# module's files are compared byte for byte and its profile is copied.
#
# Each run converts the model (greedy planner, constants read in place from
# MRAM, scratch in DTCM, as examples/kws/config.yaml) for the board's core,
# builds it -O2 with the bare-metal harness and runs case 0's inputs of the
# golden data once under QEMU -icount.
#   docs/speed_profile.sh OUT
# Environment: MEMPLAN (build/asan/memplan), MEMPLAN_MODELS
# (../shared/models), MEMPLAN_GOLDEN (../shared/golden), IN_PLACE_MODES (the
# values of memory.in_place to profile, "false true"), JOBS (2).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 1 ] || { echo "usage: docs/speed_profile.sh OUT" >&2; exit 2; }
out=$1
M=${MEMPLAN:-$PWD/build/asan/memplan}
models=${MEMPLAN_MODELS:-../shared/models}
golden=${MEMPLAN_GOLDEN:-../shared/golden}
modes=${IN_PLACE_MODES:-false true}
jobs=${JOBS:-2}
[ -x "$M" ] || { echo "speed_profile: no $M: run 'make MODE=asan' first" >&2; exit 1; }
[ -d "$golden" ] && [ -d "$models" ] ||
  { echo "speed_profile: no $models or $golden: nothing to profile" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the models with a stateful operator: generic against cortex-m55 too
stateful="tflm_keyword_scrambled_int8 tflm_mnist_lstm_int8 tflm_dtln ambiq_nnse_lstm_int8"
: > "$work/runs"
: > "$work/sums"
: > "$work/copies"
for d in "$golden"/*/; do
  n=$(basename "$d")
  [ -f "$models/$n.tflite" ] && [ -f "$d/case0.input0.bin" ] || continue
  cat > "$work/$n.yaml" <<EOF
model:    {path: $(cd "$models" && pwd)/$n.tflite, subgraph: 0, name: m}
module:   {path: out, name: m_nn, prefix: m}
platform: {name: apollo510_evb}
memory:
  planner: greedy
  constraints:
    - {name: dtcm, max_size: 262144, arena_alignment: 32}
    - {name: sram}
  tensors:
    - {type: constant, id: null, attributes: {memory: mram}}
  allocate_arenas: true
EOF
  # case 0's inputs, in the graph's order
  ins=""
  i=0
  while [ -f "$d/case0.input$i.bin" ]; do
    ins="$ins --input $(cd "$d" && pwd)/case0.input$i.bin"
    i=$((i + 1))
  done
  # a mode whose module is byte for byte one already listed for the core
  # runs the same instructions (QEMU -icount is exact): its profile is copied
  for board in mps3-an547 mps2-an386; do
    case $board in mps3-an547) target=cortex-m55 ;; *) target=cortex-m4 ;; esac
    for mode in $modes; do
      rm -rf "$work/c"
      "$M" convert --path "$work/$n.yaml" --module.path "$work/c" --module.target $target \
        --memory.in_place="$mode" > "$work/convert.log" 2>&1 ||
        { echo "speed_profile: $n, memory.in_place $mode: $(cat "$work/convert.log")" >&2; exit 1; }
      sum=$(cd "$work/c" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
      same=$(awk -v k="$n $board $sum" '$1 " " $2 " " $3 == k { print $4; exit }' "$work/sums")
      echo "$n $board $sum in_place-$mode" >> "$work/sums"
      if [ -n "$same" ]; then
        echo "$n.$board.$same $n.$board.in_place-$mode" >> "$work/copies"
      else
        echo "$n $board in_place-$mode --memory.in_place=$mode$ins" >> "$work/runs"
      fi
    done
  done
  case " $stateful " in
    *" $n "*) echo "$n mps3-an547 generic --module.target generic$ins" >> "$work/runs" ;;
  esac
done
[ -s "$work/runs" ] || { echo "speed_profile: no model with golden inputs in $golden" >&2; exit 1; }
export M work out
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 sh -c '
  n=$1 board=$2 tag=$3; shift 3
  f=$out/$n.$board.$tag.json e=$work/$n.$board.$tag.err
  if "$M" profile --path "$work/$n.yaml" --board "$board" --json "$@" > "$f.tmp" 2> "$e"; then
    mv "$f.tmp" "$f"
  else
    rm -f "$f.tmp"
    echo "speed_profile: $n on $board ($tag) failed: $(cat "$e")" >&2
    exit 255
  fi' sh < "$work/runs"
while read -r from to; do cp "$out/$from.json" "$out/$to.json"; done < "$work/copies"
echo "speed_profile: $(wc -l < "$work/runs") profiles in $out, and $(wc -l < "$work/copies")" \
  "copied for a mode that writes the same module"
