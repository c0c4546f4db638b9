#!/usr/bin/env bash
# suite_residency_schema.sh — every residency report memplan writes follows
# docs/residency.schema.json and agrees with the files it names
# (tests/check_residency.py).  Reports come from:
#   - `memplan plan --json` on the example with every planner, on the test
#     fixtures and random models mkmodel writes, and on every model of
#     the corpus ($MEMPLAN_MODELS, default ../shared/models; skipped with a
#     NOTICE when absent) but those
#     tests/expected_refusals.txt lists as refused at plan, which must be
#     refused so (tests/support/refusals.sh);
#   - `memplan convert` of the example: as configured; with allocate_arenas
#     false and staged constants (sidecar blobs with CRCs); with a tight
#     budget and a pinned tensor (spilled and pinned placement reasons).
# The checker must also refuse a report with an unknown field and one whose
# sidecar CRC is wrong.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}
MEMPLAN=${MEMPLAN:-$BUILD/memplan}
MKMODEL=$BUILD/mkmodel
CHECK="python3 tests/check_residency.py"
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
. tests/support/refusals.sh
MODELS=${MEMPLAN_MODELS:-../shared/models}
reports=()
run() { # run NAME CMD...: keep stdout as $out/NAME.json
  local name=$1; shift
  if "$@" > "$out/$name.json" 2> "$out/$name.err"; then reports+=("$out/$name.json")
  else echo "FAIL $name: $* exited $?"; sed 's/^/    /' "$out/$name.err"; fail=1; fi
}
for p in greedy greedy_by_size hill_climb exact; do
  run "kws_$p" "$MEMPLAN" plan examples/kws/kws.tflite --json --planner "$p"
done
if [ -x "$MKMODEL" ]; then
  for f in tiny variable view_chain view_of_constant optional_input intermediates external_weights; do
    "$MKMODEL" fixture "$f" "$out/$f.tflite" && run "fixture_$f" "$MEMPLAN" plan "$out/$f.tflite" --json
  done
  for s in 1 2 3; do
    "$MKMODEL" random --seed "$s" "$out/random$s.tflite" && run "random$s" "$MEMPLAN" plan "$out/random$s.tflite" --json
  done
  # a patched stage (memory.patch): planner.patch
  "$MKMODEL" fixture mobilenet_v2_96_035 "$out/mnv2.tflite" &&
    run patched "$MEMPLAN" plan "$out/mnv2.tflite" --json --memory.in_place=true \
      --memory.patch '{"first": 0, "last": 17, "rows": 3, "cols": 3}'
  # memory.patch auto keeps a chain of stages there: planner.patch.next_stages
  [ -f "$out/mnv2.tflite" ] &&
    run chained "$MEMPLAN" plan "$out/mnv2.tflite" --json --memory.in_place=true --memory.patch auto
fi
if [ -d "$MODELS" ]; then
  for m in "$MODELS"/*.tflite; do
    n=$(basename "$m" .tflite)
    if [ "$(refusal_of "$n" | cut -d' ' -f1)" = plan ]; then
      st=0
      "$MEMPLAN" plan "$m" --json --planner greedy_by_size > "$out/corpus_$n.json" 2> "$out/corpus_$n.err" || st=$?
      refused_as_listed "$n" plan $st "$out/corpus_$n.err" || fail=1
      continue
    fi
    run "corpus_$n" "$MEMPLAN" plan "$m" --json --planner greedy_by_size
  done
else
  echo "NOTICE: $MODELS is absent; the corpus reports are not checked"
fi
# convert: the example, a bound module with staged constants, spills and pins
conv() { # conv NAME ARGS...: convert the example into $out/NAME
  local name=$1; shift
  if "$MEMPLAN" convert --path examples/kws/config.yaml --module.path "$out/$name" --verbose 0 \
       --memory.dump-residency-json true "$@" 2> "$out/$name.err"; then
    reports+=("$out/$name/kws_residency.json")
  else echo "FAIL convert $name exited $?"; sed 's/^/    /' "$out/$name.err"; fail=1; fi
}
conv example
conv bound --memory.allocate-arenas false \
  --memory.tensors '[{"type":"constant","id":null,"attributes":{"memory":"mram","constant_destination_memory":"sram"}}]'
conv spill --memory.constraints '[{"name":"dtcm","max_size":8192},{"name":"sram"}]' \
  --memory.tensors '[{"type":"constant","id":null,"attributes":{"memory":"mram"}},{"type":"scratch","id":["3"],"attributes":{"memory":"sram"}}]'
$CHECK --models examples/kws "$out" "$MODELS" -- "${reports[@]}" | tee "$out/check.log" | grep -v '^ok' || true
grep -q "^${#reports[@]} of ${#reports[@]} residency reports valid" "$out/check.log" || fail=1
# every model here can be found, so every hash is checked
grep -q "(${#reports[@]} model hashes checked)" "$out/check.log" \
  || { echo "FAIL not every model hash was checked: $(tail -n 1 "$out/check.log")"; fail=1; }
# the reports say what the plans did
python3 - "$out" <<'PY' || fail=1
import json, sys
out = sys.argv[1]
bound = json.load(open(f"{out}/bound/kws_residency.json"))
files = sorted(s["file"] for s in bound["sidecars"])
want = ["data/kws_arena_const_sram__source.bin"]
if files != want: sys.exit(f"FAIL bound: sidecars {files}, want {want}")
spill = json.load(open(f"{out}/spill/kws_residency.json"))
kinds = {}
for t in spill["tensors"]: kinds.setdefault(t["placement_reason"]["kind"], []).append(t)
if not {"preferred", "spilled", "pinned", "alias"} <= kinds.keys():
    sys.exit(f"FAIL spill: reasons {sorted(kinds)}, want preferred, spilled, pinned and alias")
t3 = next(t for t in spill["tensors"] if t["id"] == 3)
r = t3["placement_reason"]
if r["kind"] != "pinned" or r["rule"]["index"] != 1 or r["rule"]["key_path"] != "memory.tensors[1]":
    sys.exit(f"FAIL spill: tensor 3's reason is {r}")
for t in kinds["spilled"]:
    s = t["placement_reason"]["spilled_from"]
    if t["memory"] != "sram" or s["memory"] != "dtcm" or s["capacity"] != 8192:
        sys.exit(f"FAIL spill: tensor {t['id']} in {t['memory']}: {s}")
print(f"ok   reasons: {', '.join(f'{k} {len(v)}' for k, v in sorted(kinds.items()))}")
try:
    pt = json.load(open(f"{out}/patched.json"))["planner"]["patch"]
except FileNotFoundError:
    sys.exit(0)
if (pt["rows"], pt["cols"], pt["first_op"], pt["last_op"]) != (3, 3, 0, 17) or pt["saved_bytes"] <= 0:
    sys.exit(f"FAIL patched: planner.patch is {pt}")
print(f"ok   patched: {pt['rows']}x{pt['cols']} tiles, {pt['saved_bytes']} bytes saved, +{pt['extra_macs_percent']} % MACs")
pc = json.load(open(f"{out}/chained.json"))["planner"]["patch"]
st = [pc] + pc.get("next_stages", [])
if len(st) < 2 or any(b["first_op"] != a["last_op"] + 1 or b["input_tensor"] != a["output_tensor"]
                      for a, b in zip(st, st[1:])) or pc["saved_bytes"] <= 0:
    sys.exit(f"FAIL chained: planner.patch is {pc}")
print(f"ok   chained: {len(st)} stages one after the other, " +
      ", ".join(f"{s['first_op']}..{s['last_op']} on {s['rows']}x{s['cols']}" for s in st) +
      f", {pc['saved_bytes']} bytes saved")
PY
# the checker refuses bad reports
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rep = json.load(open(f"{out}/example/kws_residency.json"))
rep["tensors"][0]["colour"] = "red"
json.dump(rep, open(f"{out}/bad_field.json", "w"))
b = json.load(open(f"{out}/bound/kws_residency.json"))
b["sidecars"][0]["crc32"] ^= 1
json.dump(b, open(f"{out}/bound/bad_crc.json", "w"))
PY
for bad in "$out/bad_field.json" "$out/bound/bad_crc.json"; do
  if $CHECK "$bad" > "$out/bad.log"; then echo "FAIL the checker accepted $(basename "$bad")"; fail=1
  else echo "ok   the checker refuses $(basename "$bad"): $(sed -n 2p "$out/bad.log" | sed 's/^ *//')"; fi
done
exit $fail
