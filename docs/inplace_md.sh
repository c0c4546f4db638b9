#!/usr/bin/env bash
# Regenerate docs/INPLACE.md: scratch with memory.in_place off and on, per
# planner, for every model of ../shared/models ($MEMPLAN_MODELS), the
# bundled example and memplan's PAD + convolution fixtures, from
# `memplan plan --json` (the plan's own scratch arenas, op-local scratch
# included).  Takes under a minute.
#   docs/inplace_md.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make -s
M=build/release/memplan
models=${MEMPLAN_MODELS:-../shared/models}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in padded_block pad_conv pad_conv_f32 pad_conv_s16 slices; do build/release/mkmodel fixture $f "$tmp/$f.tflite"; done
planners="greedy greedy_by_size hill_climb exact"
rows="$tmp/rows"
: > "$rows"
for f in "$models"/*.tflite examples/kws/kws.tflite "$tmp"/padded_block.tflite \
         "$tmp"/pad_conv.tflite "$tmp"/pad_conv_f32.tflite "$tmp"/pad_conv_s16.tflite \
         "$tmp"/slices.tflite; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .tflite)
  for p in $planners; do
    "$M" plan "$f" --planner "$p" --memory.in_place=false --json > "$tmp/$n.$p.off.json" 2>/dev/null
    "$M" plan "$f" --planner "$p" --memory.in_place=true --json > "$tmp/$n.$p.on.json" 2>/dev/null
  done
  "$M" inspect "$f" --json > "$tmp/$n.inspect.json"
  echo "$n" >> "$rows"
done
python3 - "$tmp" "$rows" $planners > docs/INPLACE.md <<'PY'
import json, sys
tmp, rows, planners = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(n, p, k): return json.load(open("%s/%s.%s.%s.json" % (tmp, n, p, k)))
def scratch(r): return sum(a["size"] for a in r["arenas"] if a["role"] == "scratch")
def field(r, k): return sum(a.get(k, 0) for a in r["arenas"] if a["role"] == "scratch")
print("""# In place: scratch with `memory.in_place` off and on

Written by `docs/inplace_md.sh` from `memplan plan MODEL --planner P
--memory.in_place=false|true --json`: the bytes of the plan's scratch arenas,
op-local scratch included, as `off -> on`. "bound" is the tensor-level lower
bound of the model as written, "in-place bound" the lowest in-place bound of
the in-place plans (PADs folded where a plan kept the folds), "folds" the
PADs that fold into their convolutions (`memplan inspect`); a cell marked
"not folded" is a plan for which the unfolded model needed less scratch, so
memplan kept the PADs. `padded_block` (a MobileNetV2 block with an explicit
PAD), `pad_conv`, `pad_conv_f32` and `pad_conv_s16` (int8, float32, 16x8)
and `slices` (SLICEs between convolutions) are memplan's fixtures
(`mkmodel fixture NAME`); the corpus models have no PAD, so their gains
are the kernels' overlap contracts alone.
""")
print("| model | bound | in-place bound | folds | " + " | ".join(planners) + " |")
print("|---|---:|---:|---:|" + "---:|" * len(planners))
for n in open(rows).read().split():
    folds = json.load(open("%s/%s.inspect.json" % (tmp, n)))["inplace_pads_folded"]
    bound = field(load(n, planners[0], "off"), "lower_bound")
    ib = min(field(load(n, p, "on"), "inplace_bound") for p in planners)
    cells = [n, "{:,}".format(bound), "{:,}".format(ib), str(folds)]
    for p in planners:
        off, on = load(n, p, "off"), load(n, p, "on")
        a, b = scratch(off), scratch(on)
        kept = on["planner"].get("rewrites", {}).get("pads_folded", 0)
        note = ", not folded" if folds and kept < folds else ""
        cells.append("{:,} -> {:,} ({:+.1f} %{})".format(a, b, 100.0 * (b - a) / a if a else 0.0,
                                                        note))
    print("| " + " | ".join(cells) + " |")
PY
echo "docs/INPLACE.md written"
