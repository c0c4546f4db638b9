#!/usr/bin/env bash
# Regenerate docs/INPLACE.md: scratch with memory.in_place off and on, per
# planner, for every model of ../shared/models ($MEMPLAN_MODELS), the
# bundled example, memplan's PAD + convolution fixtures and its held-out
# networks (mkmodel --list-nets), from `memplan plan --json` (the plan's
# own scratch arenas, op-local scratch included), and the held-out
# networks' convert time with in_place off and on, the full-size
# MobileNetV2s' outputs in place against plain, and the bound of the
# model's operator order and of memory.op_order min_peak's for the same
# models, the held-out networks and memplan's branch fixtures, then the
# memory.patch section (docs/patch_md.sh).  Takes a few minutes.
#   docs/inplace_md.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make -s
M=build/release/memplan
models=${MEMPLAN_MODELS:-../shared/models}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in padded_block pad_conv pad_conv_f32 pad_conv_s16 slices views views_f32 heads; do build/release/mkmodel fixture $f "$tmp/$f.tflite"; done
planners="greedy greedy_by_size hill_climb exact"
rows="$tmp/rows"
: > "$rows"
for f in "$models"/*.tflite examples/kws/kws.tflite "$tmp"/padded_block.tflite \
         "$tmp"/pad_conv.tflite "$tmp"/pad_conv_f32.tflite "$tmp"/pad_conv_s16.tflite \
         "$tmp"/slices.tflite "$tmp"/views.tflite "$tmp"/views_f32.tflite "$tmp"/heads.tflite; do
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
memplan kept the PADs. "views" counts the SPLIT / SLICE-like operators
made views and the CONCATENATION / PACK operators elided, as
`views + elided`, that memplan keeps for the in-place bound; a cell marked
"no views" is a plan for which the model without them needed less scratch.
`padded_block` (a MobileNetV2 block with an explicit PAD), `pad_conv`,
`pad_conv_f32` and `pad_conv_s16` (int8, float32, 16x8), `slices` (SLICEs
between convolutions), `views` and `views_f32` (int8 and float32 SPLIT,
SPLIT_V, UNPACK, SLICE, STRIDED_SLICE, CONCATENATION and PACK, views and
refusals) and `heads` (FULLY_CONNECTED heads concatenated, a SPLIT into
heads) are memplan's fixtures (`mkmodel fixture NAME`); the corpus models
have no PAD and no operator that becomes a view, so their gains are the
kernels' overlap contracts alone.
""")
print("| model | bound | in-place bound | folds | views | " + " | ".join(planners) + " |")
print("|---|---:|---:|---:|---:|" + "---:|" * len(planners))
for n in open(rows).read().split():
    ins = json.load(open("%s/%s.inspect.json" % (tmp, n)))
    folds = ins["inplace_pads_folded"]
    views = ins["inplace_views"] + ins["inplace_concats_elided"]
    bound = field(load(n, planners[0], "off"), "lower_bound")
    ib = min(field(load(n, p, "on"), "inplace_bound") for p in planners)
    cells = [n, "{:,}".format(bound), "{:,}".format(ib), str(folds),
             "%d + %d" % (ins["inplace_views"], ins["inplace_concats_elided"]) if views else "0"]
    for p in planners:
        off, on = load(n, p, "off"), load(n, p, "on")
        a, b = scratch(off), scratch(on)
        rw = on["planner"].get("rewrites", {})
        kept = rw.get("pads_folded", 0)
        note = ", not folded" if folds and kept < folds else ""
        if views and rw.get("views", 0) + rw.get("concats_elided", 0) == 0:
            note += ", no views"
        cells.append("{:,} -> {:,} ({:+.1f} %{})".format(a, b, 100.0 * (b - a) / a if a else 0.0,
                                                        note))
    print("| " + " | ".join(cells) + " |")
PY
# The held-out networks: whole models nobody tuned the overlap contracts
# for.  The 224x224 MobileNetV2s do not fit apollo510_evb's banks in one
# piece; they are planned on one 64 MiB bank, the others on the default
# platform.  Convert time: `memplan convert` (target generic, the module
# written), CPU seconds, median of 3, in_place off and on side by side.
for n in $(build/release/mkmodel --list-nets); do build/release/mkmodel fixture "$n" "$tmp/net_$n.tflite"; done
python3 - "$tmp" "$M" $planners >> docs/INPLACE.md <<'PY'
import json, os, resource, statistics, subprocess, sys
tmp, M, planners = sys.argv[1], sys.argv[2], sys.argv[3:]
one_bank = ["--platform.name", "one_bank", "--platform.memories.sram", "64MiB",
            "--platform.memories.mram", "64MiB"]
nets = subprocess.run(["build/release/mkmodel", "--list-nets"], capture_output=True, text=True,
                      check=True).stdout.split()
def plat(n): return one_bank if "_224" in n else []
def plan(n, p, ip):
    out = subprocess.run([M, "plan", "%s/net_%s.tflite" % (tmp, n), "--planner", p,
                          "--memory.in_place=" + ip, "--json"] + plat(n),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
def field(r, k): return sum(a.get(k, 0) for a in r["arenas"] if a["role"] == "scratch")
def convert_cpu(n, p, ip):
    times = []
    for _ in range(3):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([M, "convert", "--quiet", "--model.path", "%s/net_%s.tflite" % (tmp, n),
                        "--module.path", "%s/mod" % tmp, "--module.prefix", "net",
                        "--memory.planner", p, "--memory.in_place=" + ip] + plat(n),
                       capture_output=True, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(times)
print("""
## Held-out networks

Whole networks in the shapes converters write, none of them tuned for
memplan (`mkmodel fixture NAME`, deterministic pseudo-random weights):
`mobilenet_v2_*` a MobileNetV2 as PyTorch converters write it (an explicit
PAD before the stem and every 3x3 depthwise convolution, VALID padding in
the convolutions, ReLU6, residual ADDs, MEAN + FULLY_CONNECTED + SOFTMAX),
int8 per-channel or float32, at 224x224 width 1.0 (peak: the 112x112x96
expansion and its padded copy, 2,451,840 B in int8) and at 96x96 width
0.35; `vww_96_f32` a float32 MobileNetV1 0.25 visual wake words model
(SAME padding, AVERAGE_POOL_2D); `resnet_48` an int8 ResNet with ADD skips
and stride-2 1x1 shortcut convolutions; `branches_40` an inception-style
int8 model (CONCATENATION of three branches, a depthwise convolution with
depth multiplier 2, a dilated convolution); `s16_net_32` a 16x8 model;
`resnet_pt_64*` a ResNet as PyTorch converters write it (PADs before the
stem, its max pool and every 3x3 convolution); `mobilenet_v2_96_035_tf`
and `mobilenet_v2_96_035_keras*` the MobileNetV2 as TF / Keras write it
(SAME padding, no PAD) and as keras.applications writes it (asymmetric
(0,1) PAD / PADV2 before the stride-2 3x3s); `pad_values_32` PADV2s whose
value is not the zero point beside ones that fold; `ds_cnn_kws` a DS-CNN
keyword spotter; `float_io_32` an int8 model with float32 I/O (QUANTIZE,
DEQUANTIZE); `s16_res_24` a 16x8 residual model; `two_heads_32` two
branches from the input, an ADD of two scales and three graph outputs;
`svdf_kws` and `lstm_8x12` SVDF and LSTM models, whose state persists.
The 224x224 models are planned on one 64 MiB bank (`--platform.name
one_bank --platform.memories.sram 64MiB --platform.memories.mram 64MiB`):
on apollo510_evb their scratch no longer fits dtcm and spills into sram, so
the sum of two arenas is not the peak. Columns as above, "below bound" is
the best in-place plan against the tensor-level bound, and "convert s" is
`memplan convert` with hill_climb, CPU seconds (median of 3), in_place off
-> on. `tests/suite_rewrite.sh` runs the small ones' modules with in_place
against the plain modules on garbage-filled scratch, every operator's
output compared, on the host and the Cortex-M55.
""")
print("| model | bound | in-place bound | folds | " + " | ".join(planners) +
      " | below bound | convert s |")
print("|---|---:|---:|---:|" + "---:|" * len(planners) + "---:|---:|")
for n in nets:
    off = {p: plan(n, p, "false") for p in planners}
    on = {p: plan(n, p, "true") for p in planners}
    bound = field(off[planners[0]], "lower_bound")
    ib = min(field(on[p], "inplace_bound") for p in planners)
    folds = max(on[p]["planner"].get("rewrites", {}).get("pads_folded", 0) for p in planners)
    cells = [n, "{:,}".format(bound), "{:,}".format(ib), str(folds)]
    best = None
    for p in planners:
        a, b = field(off[p], "size"), field(on[p], "size")
        assert b <= bound, (n, p, b, bound)
        best = b if best is None else min(best, b)
        cells.append("{:,} -> {:,} ({:+.1f} %)".format(a, b, 100.0 * (b - a) / a))
    cells.append("{:.1f} %".format(100.0 * (bound - best) / bound))
    cells.append("{:.3f} -> {:.3f}".format(convert_cpu(n, "hill_climb", "false"),
                                           convert_cpu(n, "hill_climb", "true")))
    print("| " + " | ".join(cells) + " |")
PY
# The full-size MobileNetV2s' outputs (too slow for the test suite, where
# the 96x96 ones run): the in-place module against the plain one, built
# with gcc -O2 -Wall -Wextra -Werror for the host and run by
# tests/rewrite/fold_app.c on garbage-filled scratch, twice; every
# operator's outputs must match.
one_bank="--platform.name one_bank --platform.memories.sram 64MiB --platform.memories.mram 64MiB"
printf '\nOutputs of the full-size MobileNetV2s (`docs/inplace_md.sh`):\n\n' >> docs/INPLACE.md
for n in mobilenet_v2_224 mobilenet_v2_224_f32; do
  for ip in false true; do
    d="$tmp/run_${n}_$ip"
    # shellcheck disable=SC2086
    "$M" convert --quiet --model.path "$tmp/net_$n.tflite" --module.path "$d" --module.prefix fx \
      --memory.planner hill_climb --memory.in_place=$ip $one_bank > "$d.log" 2>&1 ||
      { cat "$d.log" >&2; exit 1; }
    cc -std=c99 -O2 -Wall -Wextra -Werror -I"$d/include" -I"$d/kernels" -DFX_WITH_KERNELS=1 \
      tests/rewrite/fold_app.c "$d"/src/*.c "$d"/kernels/*.c -lm -o "$d.app"
    "$d.app" > "$d.out"
  done
  off="$tmp/run_${n}_false.out" on="$tmp/run_${n}_true.out"
  if ! cmp -s "$off" "$on" || [ "$(tail -1 "$on")" != "two runs alike" ]; then
    echo "docs/inplace_md.sh: $n: the in-place module's outputs differ from the plain one's" >&2
    exit 1
  fi
  echo "- \`$n\` (hill_climb, one bank): the in-place module gives the plain module's outputs and those of its $(grep -c '^op ' "$on") operators other than PADs, byte for byte, on garbage-filled scratch, two runs each (host, gcc -O2)." >> docs/INPLACE.md
done
# memory.op_order: every model above (the 224x224 networks on one bank)
# and the branch fixtures, hill_climb, in place off and on, the model's
# order and min_peak's
for f in branch_add branch_concat branch_custom; do build/release/mkmodel fixture $f "$tmp/$f.tflite"; done
python3 - "$tmp" "$M" "$models" >> docs/INPLACE.md <<'PY'
import glob, json, os, subprocess, sys
tmp, M, models = sys.argv[1], sys.argv[2], sys.argv[3]
one_bank = ["--platform.name", "one_bank", "--platform.memories.sram", "64MiB",
            "--platform.memories.mram", "64MiB"]
files = sorted(glob.glob(os.path.join(models, "*.tflite"))) + ["examples/kws/kws.tflite"]
files += ["%s/%s.tflite" % (tmp, n) for n in ("padded_block", "pad_conv", "slices")]
files += sorted(glob.glob("%s/net_*.tflite" % tmp))
files += ["%s/%s.tflite" % (tmp, n) for n in ("branch_add", "branch_concat", "branch_custom")]
def plan(f, ip, order):
    out = subprocess.run([M, "plan", f, "--planner", "hill_climb", "--memory.in_place=" + ip,
                          "--memory.op_order=" + order, "--json"] + (one_bank if "_224" in f else []),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
def scratch(r): return sum(a["size"] for a in r["arenas"] if a["role"] == "scratch")
def arrow(a, b):
    return "{:,}".format(a) if a == b else "{:,} -> {:,} ({:+.1f} %)".format(a, b, 100.0 * (b - a) / a)
print("""
## The operator order (`memory.op_order: min_peak`)

From `memplan plan MODEL --planner hill_climb --memory.in_place=false|true
--memory.op_order=model|min_peak --json`: the bound min_peak minimises (the
tensor-level bound with in_place off, the in-place bound with it on, at the
platform's minimum alignment) in the model's order and in the order chosen
(`planner.op_order`), the operators that moved, whether the search covered
every order ("exact": no order is lower), and hill_climb's scratch in the
model's order and in min_peak's. An order is kept only when its bound is
strictly lower. `branch_add`, `branch_concat` and `branch_custom` are
memplan's branch fixtures (`fixtures.c` computes their best orders by hand;
`branch_custom`'s two custom operators keep their order), `net_*` the
held-out networks above.
""")
print("| model | ops | bound | moved | exact | scratch | in-place bound | moved | exact | scratch, in place |")
print("|---|---:|---:|---:|---|---:|---:|---:|---|---:|")
for f in files:
    if not os.path.exists(f):
        continue
    cells = [os.path.basename(f)[:-len(".tflite")]]
    for ip in ("false", "true"):
        base, mp = plan(f, ip, "model"), plan(f, ip, "min_peak")
        oo = mp["planner"]["op_order"]
        if ip == "false":
            cells.append(str(mp["model"]["ops"]))
        cells += [arrow(oo["model_order_bound"], oo["bound"]), str(oo["moved"]),
                  "yes" if oo["exact"] else "no", arrow(scratch(base), scratch(mp))]
    print("| " + " | ".join(cells) + " |")
PY
# memory.patch: the patched plans and the full-size MobileNetV2 run tiled
bash docs/patch_md.sh >> docs/INPLACE.md
echo "docs/INPLACE.md written"
