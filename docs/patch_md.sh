#!/usr/bin/env bash
# Print the memory.patch section of docs/INPLACE.md (docs/inplace_md.sh
# appends it): for every model of ../shared/models ($MEMPLAN_MODELS), the
# bundled example and memplan's held-out networks, the greedy in-place
# plan's scratch against memory.patch auto's (`memplan plan --json`,
# planner.patch: the stage, its tiles, halo and extra multiply-accumulates),
# the full-size MobileNetV2's targets, and the patched MobileNetV2 at
# 224x224 run against the in-place module (gcc -O2, host, garbage-filled
# scratch, every operator outside the stage compared).
#   docs/patch_md.sh >> docs/INPLACE.md
set -euo pipefail
cd "$(dirname "$0")/.."
make -s >&2
M=build/release/memplan
models=${MEMPLAN_MODELS:-../shared/models}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
files=()
for f in "$models"/*.tflite examples/kws/kws.tflite; do [ -f "$f" ] && files+=("$f"); done
for n in $(build/release/mkmodel --list-nets); do
  build/release/mkmodel fixture "$n" "$tmp/net_$n.tflite"
  files+=("$tmp/net_$n.tflite")
done
python3 - "$M" "${files[@]}" <<'PY'
import json, os, subprocess, sys
M, files = sys.argv[1], sys.argv[2:]
one_bank = ["--platform.name", "one_bank", "--platform.memories.sram", "64MiB",
            "--platform.memories.mram", "64MiB"]
def plan(f, extra):
    r = subprocess.run([M, "plan", f, "--memory.in_place=true", "--json"] + extra +
                       (one_bank if "_224" in f else []), capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None
def scratch(r): return sum(a["size"] for a in r["arenas"] if a["role"] == "scratch")
print("""
## Patch-based inference (`memory.patch`)

Written by `docs/patch_md.sh`: `memplan plan MODEL --memory.in_place=true
--json`, greedy, without and with `--memory.patch auto` (the 224x224
networks on one bank, as above). "in place" is the in-place plan's scratch,
"patched" memory.patch auto's, the graph input counted in both (it lives in
the scratch arena); "stage" the operators run tile by tile and the tile
grid, "halo" the most input rows x columns a tile reads beyond its share,
"tile buffers" the stage's op-local scratch, "extra MACs" the halos'
recomputation as a share of the model's multiply-accumulates (a chain of
stages one after the other: each stage's, separated by ";", the MACs
summed). A model auto
leaves unpatched ("-") plans no smaller patched, or has no stage to patch
(a first operator that is no convolution or pool, explicit PADs without
memory.in_place to fold them).
""")
print("| model | in place | patched | stage | halo | tile buffers | extra MACs |")
print("|---|---:|---:|---|---|---:|---:|")
for f in files:
    n = os.path.basename(f)[:-len(".tflite")]
    a, b = plan(f, []), plan(f, ["--memory.patch", "auto"])
    if a is None or b is None:
        print(f"| {n} | not planned | | | | | |")
        continue
    pt = b["planner"].get("patch")
    if not pt:
        print(f"| {n} | {scratch(a):,} | - | | | | |")
        continue
    sa, sb = scratch(a), scratch(b)
    st = [pt] + pt.get("next_stages", [])
    grid = "; ".join("ops %d..%d, %dx%d" % (s["first_op"], s["last_op"], s["rows"], s["cols"]) for s in st)
    halo = "; ".join("%dx%d" % (s["halo_rows"], s["halo_cols"]) for s in st)
    tiles = "; ".join(f"{s['tile_buffer_bytes']:,}" for s in st)
    print(f"| {n} | {sa:,} | {sb:,} ({100.0 * (sb - sa) / sa:+.1f} %) | {grid} | {halo} | {tiles} | "
          f"+{sum(s['extra_macs_percent'] for s in st):.2f} % |")
PY
# The MobileNetV2 at 224x224: targets, and the patched module run
n=mobilenet_v2_224
one_bank="--platform.name one_bank --platform.memories.sram 64MiB --platform.memories.mram 64MiB"
printf '\nMobileNetV2 1.0 at 224x224, int8 (`net_mobilenet_v2_224`), scratch with the input counted:\n\n' 
# shellcheck disable=SC2086
auto=$("$M" plan "$tmp/net_$n.tflite" --memory.in_place=true --memory.patch auto --json $one_bank |
  python3 -c 'import json,sys; r=json.load(sys.stdin); print(sum(a["size"] for a in r["arenas"] if a["role"]=="scratch"))')
# shellcheck disable=SC2086
inpl=$("$M" plan "$tmp/net_$n.tflite" --memory.in_place=true --json $one_bank |
  python3 -c 'import json,sys; r=json.load(sys.stdin); print(sum(a["size"] for a in r["arenas"] if a["role"]=="scratch"))')
verdict() { [ "$1" -le "$2" ] && echo "met" || echo "not met"; }
echo "| target | bytes | memory.patch auto | |"
echo "|---|---:|---:|---|"
comma() { python3 -c 'import sys; print("{:,}".format(int(sys.argv[1])))' "$1"; }
echo "| in place (no patch) | | $(comma "$inpl") | |"
echo "| scratch <= 320 KiB | 327,680 | $(comma "$auto") | $(verdict "$auto" 327680) |"
echo "| scratch <= 160 KiB (below MCUNetV2's 172 KiB) | 163,840 | $(comma "$auto") | $(verdict "$auto" 163840) |"
echo
for mode in plain patch; do
  d="$tmp/run_$mode"
  extra=""
  [ $mode = patch ] && extra="--memory.patch=auto"
  # shellcheck disable=SC2086
  "$M" convert --quiet --model.path "$tmp/net_$n.tflite" --module.path "$d" --module.prefix fx \
    --memory.in_place=true $extra --memory.dump_residency_json=true $one_bank > "$d.log" 2>&1 ||
    { cat "$d.log" >&2; exit 1; }
  cc -std=c99 -O2 -Wall -Wextra -Werror -I"$d/include" -I"$d/kernels" -DFX_WITH_KERNELS=1 \
    tests/rewrite/fold_app.c "$d"/src/*.c "$d"/kernels/*.c -lm -o "$d.app"
  "$d.app" > "$d.out"
done
python3 - "$tmp/run_plain.out" "$tmp/run_patch.out" "$tmp/run_patch/fx_residency.json" <<'PY'
import json, sys
pt = json.load(open(sys.argv[3]))["planner"]["patch"]
def lines(f):
    ops, rest = {}, []
    for l in open(f).read().splitlines():
        (ops.__setitem__(int(l.split()[1]), l) if l.startswith("op ") else rest.append(l))
    return ops, rest
(po, pr), (qo, qr) = lines(sys.argv[1]), lines(sys.argv[2])
stages = [pt] + pt.get("next_stages", [])
keep = [k for k in po if all(k < s["first_op"] or k >= s["last_op"] for s in stages)]
if pr != qr or any(po[k] != qo.get(k) for k in keep) or pr[-1] != "two runs alike":
    sys.exit("docs/patch_md.sh: the patched MobileNetV2's outputs differ from the in-place module's")
st = ", ".join(f"{s['first_op']}..{s['last_op']} on {s['rows']}x{s['cols']} tiles" for s in stages)
print(f"- `mobilenet_v2_224` (greedy, one bank, memory.patch auto: operators {st}): the patched module "
      f"gives the in-place module's outputs and those of its {len(keep)} operators outside the "
      f"stage{'s' if len(stages) > 1 else ''} (each stage's output included), byte for byte, "
      f"on garbage-filled scratch, two runs each (host, gcc -O2).")
PY
