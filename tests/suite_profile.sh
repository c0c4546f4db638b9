#!/usr/bin/env bash
# suite_profile.sh — `memplan profile`: the example's module built for each
# emulated board and run on QEMU, one row per operator.  Checked:
#   - every operator of the model has its row, with the kernel the
#     residency report names and its instructions; the rows add up to the
#     run's total less the run loop's few instructions between operators;
#   - the same run twice gives the same counts (QEMU -icount is exact);
#   - on the Cortex-M55 the cortex-m55 kernels take fewer instructions than
#     the generic ones, and --json gives the same figures as the table;
#   - the Cortex-M4F and Cortex-M7 boards run too;
#   - a module with a chain of patched stages (memory.patch auto) is
#     profiled again with memory.patch off: each stage's and the run's
#     instructions against that run's, as a separate memory.patch off
#     profile gives them;
#   - with memory.in_place size, whose depthwise convolutions run channel
#     by channel, the module is profiled again with speed: the price in
#     instructions is a separate speed profile's, and the bytes saved are
#     the speed module's scratch (its residency report) less this one's;
#   - --input feeds the given bytes (a file of the wrong size is refused
#     by the run, naming the input);
#   - a missing emulator or toolchain is an error naming the Debian
#     package, an unknown board and --module.path are usage errors, and no
#     temporary folder is left behind.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
for tool in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm; do
  command -v $tool >/dev/null || { echo "NOTICE: $tool is absent: memplan profile is not checked"; exit 0; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/t; mkdir -p "$TMPDIR"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
cfg=examples/kws/config.yaml

# the Cortex-M55, cortex-m55 kernels, as JSON and as a table
"$MEMPLAN" profile --path $cfg --json > "$tmp/a.json" 2> "$tmp/a.err" || bad "profile --json: exit $? ($(cat "$tmp/a.err"))"
"$MEMPLAN" profile --path $cfg > "$tmp/a.txt" 2> "$tmp/a2.err" || bad "profile: exit $? ($(cat "$tmp/a2.err"))"
"$MEMPLAN" profile --path $cfg --json > "$tmp/b.json" 2>/dev/null || bad "profile --json (again): exit $?"
"$MEMPLAN" profile --path $cfg --json --module.target generic > "$tmp/g.json" 2>/dev/null || bad "profile generic: exit $?"
"$MEMPLAN" convert --path $cfg --module.path "$tmp/m" --module.target cortex-m55 --memory.dump-residency-json --quiet > /dev/null 2>&1 ||
  bad "convert: exit $?"
python3 - "$tmp" <<'PY' || fail=1
import json, re, sys
t = sys.argv[1]
a = json.load(open(t + "/a.json")); b = json.load(open(t + "/b.json")); g = json.load(open(t + "/g.json"))
res = json.load(open(t + "/m/kws_residency.json"))
bad = []
ops = a["ops"]
if len(ops) != len(res["ops"]): bad.append("%d rows for %d operators" % (len(ops), len(res["ops"])))
for o, r in zip(ops, res["ops"]):
    if o["operator"] != r["operator"] or o["kernel"] != r["kernel"]:
        bad.append("op %d: %s/%s, the report says %s/%s" % (o["index"], o["operator"], o["kernel"], r["operator"], r["kernel"]))
    if r["kernel"] and o["instructions"] <= 0: bad.append("op %d: no instructions" % o["index"])
s = sum(o["instructions"] for o in ops)
if s != a["instructions_ops"]: bad.append("instructions_ops %d, the rows add up to %d" % (a["instructions_ops"], s))
gap = a["instructions_run"] - s
if not (0 <= gap <= 100 * len(ops)): bad.append("run %d against the rows' %d" % (a["instructions_run"], s))
if a != b: bad.append("two runs differ")
if not g["instructions_run"] > a["instructions_run"]:
    bad.append("generic %d is not above cortex-m55 %d" % (g["instructions_run"], a["instructions_run"]))
if "not cycles" not in a["unit"]: bad.append("the unit does not say: not cycles")
if not (a["image_bytes"]["text"] > 0 and a["stack_bytes"] > 0): bad.append("no sizes or stack")
txt = open(t + "/a.txt").read()
m = re.search(r"total +([0-9,]+) instructions", txt)
if not m or int(m.group(1).replace(",", "")) != a["instructions_run"]: bad.append("the table's total differs from --json's")
for o in ops:
    want = "%-4d %-22s" % (o["index"], o["operator"])
    if want not in txt: bad.append("no row %r" % want)
if "instructions, not cycles" not in txt: bad.append("the table does not say: instructions, not cycles")
for x in bad: print("FAIL " + x)
if bad: sys.exit(1)
print("ok   kws on mps3-an547: %d rows, %d instructions (generic %d), the same twice, as the report's kernels"
      % (len(ops), a["instructions_run"], g["instructions_run"]))
PY

# the other boards
for b in mps2-an386 mps2-an500; do
  if "$MEMPLAN" profile --path $cfg --board $b > "$tmp/$b.txt" 2> "$tmp/$b.err" &&
     grep -q '^total .* instructions per inference' "$tmp/$b.txt"; then ok "$b: $(grep '^total' "$tmp/$b.txt" | cut -c1-60)"
  else bad "$b: $(cat "$tmp/$b.err")"; fi
done

# --input: the right size runs, another size is refused by the run
n=$(python3 -c "import json;print(json.load(open('$tmp/m/kws_residency.json'))['inputs'][0]['size'])")
# a size that is no positive number (the report missing) must not turn
# 'head -c $((n - 1))' below into an endless read of /dev/zero
case $n in ''|*[!0-9]*|0) bad "no input size in $tmp/m/kws_residency.json"; exit 1 ;; esac
head -c "$n" /dev/zero > "$tmp/in.bin"
"$MEMPLAN" profile --path $cfg --input "$tmp/in.bin" > "$tmp/in.txt" 2> "$tmp/in.err" &&
  grep -q 'the given inputs' "$tmp/in.txt" && ok "--input of $n bytes" || bad "--input: $(cat "$tmp/in.err")"
head -c $((n - 1)) /dev/zero > "$tmp/short.bin"
if "$MEMPLAN" profile --path $cfg --input "$tmp/short.bin" > /dev/null 2> "$tmp/short.err"; then
  bad "an input file one byte short was accepted"
elif grep -q "input 0 takes $n bytes" "$tmp/short.err"; then ok "an input one byte short: $(head -n 1 "$tmp/short.err")"
else bad "an input one byte short: $(cat "$tmp/short.err")"; fi
"$MEMPLAN" profile --path $cfg --input "$tmp/in.bin" --input "$tmp/in.bin" > /dev/null 2> "$tmp/two.err" &&
  bad "two --input files for one input accepted" || ok "$(head -n 1 "$tmp/two.err")"

# patched stages (memory.patch auto keeps a chain of two on this fixture):
# the module is profiled again with memory.patch off, and each stage's and
# the run's instructions compared
MKMODEL=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}/mkmodel
mkdir -p "$tmp/pt"
"$MKMODEL" fixture patch_chain_64 "$tmp/pt/pc.tflite" > /dev/null
cat > "$tmp/pt/config.yaml" <<'EOF2'
model:    {path: pc.tflite, name: pc}
module:   {path: out, prefix: pc}
platform: {name: apollo510_evb}
memory:   {planner: greedy, in_place: true, patch: auto}
EOF2
if "$MEMPLAN" profile --path "$tmp/pt/config.yaml" --json > "$tmp/pt/a.json" 2> "$tmp/pt/a.err" &&
   "$MEMPLAN" profile --path "$tmp/pt/config.yaml" --memory.patch off --json > "$tmp/pt/off.json" 2> "$tmp/pt/off.err" &&
   "$MEMPLAN" profile --path "$tmp/pt/config.yaml" > "$tmp/pt/a.txt" 2> "$tmp/pt/t.err"; then
  python3 - "$tmp/pt/a.json" "$tmp/pt/off.json" "$tmp/pt/a.txt" <<'PY'
import json, sys
a, off, txt = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
bad = []
p = a.get("patch")
if not p: sys.exit("FAIL memory.patch auto: the profile has no patch figures")
if "patch" in off: bad.append("memory.patch off: the profile still has patch figures")
stages = [p] + p.get("next_stages", [])
if len(stages) < 2: bad.append("one stage only: the fixture no longer makes a chain")
if p["unpatched_instructions_run"] != off["instructions_run"]:
    bad.append("unpatched run %d, memory.patch off's profile %d" % (p["unpatched_instructions_run"], off["instructions_run"]))
lines = txt.splitlines()
for s in stages:
    ops = range(s["first_op"], s["last_op"] + 1)
    if s["unpatched_stage_instructions"] != sum(o["instructions"] for o in off["ops"] if o["index"] in ops):
        bad.append("stage %d..%d: the unpatched instructions are not its operators' in the memory.patch off run" % (s["first_op"], s["last_op"]))
    if s["stage_instructions"] != sum(o["instructions"] for o in a["ops"] if o["index"] in ops):
        bad.append("stage %d..%d: its instructions are not its operators'" % (s["first_op"], s["last_op"]))
    if not any(l.split()[:1] == [str(s["first_op"])] and "patched stage %dx%d" % (s["rows"], s["cols"]) in l for l in lines):
        bad.append("the table names no patched stage at op %d" % s["first_op"])
    if not any(("operators %d .. %d tile by tile" % (s["first_op"], s["last_op"])) in l and "against" in l for l in lines):
        bad.append("no patch line for stage %d..%d" % (s["first_op"], s["last_op"]))
if abs(p["extra_macs_percent_all_stages"] - sum(s["extra_macs_percent"] for s in stages)) > 1e-6:
    bad.append("the stages' extra multiply-accumulates do not add up")
want = 100.0 * (a["instructions_run"] - off["instructions_run"]) / off["instructions_run"]
if abs(p["extra_instructions_percent"] - want) > 1e-6: bad.append("extra instructions %f, want %f" % (p["extra_instructions_percent"], want))
for x in bad: print("FAIL " + x)
if bad: sys.exit(1)
print("ok   patch_chain_64, memory.patch auto: %d stages (%s), run %+.1f %% instructions"
      % (len(stages), ", ".join("%d..%d %dx%d: %d against %d" % (s["first_op"], s["last_op"], s["rows"], s["cols"],
         s["stage_instructions"], s["unpatched_stage_instructions"]) for s in stages), p["extra_instructions_percent"]))
PY
  [ $? = 0 ] || fail=1
else
  bad "memory.patch auto: $(cat "$tmp/pt/a.err" "$tmp/pt/off.err" "$tmp/pt/t.err")"
fi

# memory.in_place size: the channel-serial operators' price, against a
# separate speed profile and the speed module's own scratch
if "$MEMPLAN" profile --path $cfg --memory.in_place size --json > "$tmp/ip.json" 2> "$tmp/ip.err" &&
   "$MEMPLAN" profile --path $cfg --memory.in_place=speed --json > "$tmp/sp.json" 2> "$tmp/sp.err" &&
   "$MEMPLAN" profile --path $cfg --memory.in_place=size > "$tmp/ip.txt" 2> "$tmp/ipt.err" &&
   "$MEMPLAN" convert --path $cfg --module.path "$tmp/ms" --module.target cortex-m55 --memory.in_place speed \
     --memory.dump-residency-json --quiet > /dev/null 2> "$tmp/ms.err"; then
  python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
a, s, off = (json.load(open(t + f)) for f in ("/ip.json", "/sp.json", "/a.json"))
txt = open(t + "/ip.txt").read()
ms = json.load(open(t + "/ms/kws_residency.json"))
bad = []
i = a.get("in_place")
if not i: sys.exit("FAIL memory.in_place size: the profile has no in_place figures")
if (a["in_place_mode"], s["in_place_mode"], off["in_place_mode"]) != ("size", "speed", "false"):
    bad.append("in_place_mode %s / %s / %s" % (a["in_place_mode"], s["in_place_mode"], off["in_place_mode"]))
if "in_place" in s or "in_place" in off: bad.append("speed or off has in_place figures")
serial = [o["index"] for o in a["ops"] if "_serial" in (o["kernel"] or "")]
if not serial or i["channel_serial_ops"] != serial:
    bad.append("channel_serial_ops %s, the kernels say %s" % (i["channel_serial_ops"], serial))
if any("_serial" in (o["kernel"] or "") for o in s["ops"]): bad.append("speed runs a channel-serial kernel")
if i["speed_instructions_run"] != s["instructions_run"]:
    bad.append("speed run %d, the speed profile's %d" % (i["speed_instructions_run"], s["instructions_run"]))
extra = a["instructions_run"] - s["instructions_run"]
if i["extra_instructions"] != extra or extra <= 0: bad.append("extra %d, want %d > 0" % (i["extra_instructions"], extra))
want = 100.0 * extra / s["instructions_run"]
if abs(i["extra_instructions_percent"] - want) > 1e-6: bad.append("extra %% %f, want %f" % (i["extra_instructions_percent"], want))
speed_scratch = sum(x["size"] for x in ms["arenas"] if x["role"] == "scratch")
if i.get("speed_scratch") != speed_scratch:
    bad.append("speed_scratch %s, the speed module's scratch arenas %d" % (i.get("speed_scratch"), speed_scratch))
if not 0 < i.get("saved_bytes", 0) == speed_scratch - i["scratch"]: bad.append("saved_bytes %s" % i.get("saved_bytes"))
line = "in_place  size saves {:,} B over speed ({:,} against {:,} B of scratch) for +{:,}".format(
    i["saved_bytes"], i["scratch"], speed_scratch, extra)
if line not in txt: bad.append("no line %r" % line)
for x in bad: print("FAIL " + x)
if bad: sys.exit(1)
print("ok   kws, memory.in_place size (ops %s channel by channel): %d B less scratch than speed for %+d instructions (%+.1f %%)"
      % (serial, i["saved_bytes"], extra, want))
PY
  [ $? = 0 ] || fail=1
else
  bad "memory.in_place size: $(cat "$tmp/ip.err" "$tmp/sp.err" "$tmp/ipt.err" "$tmp/ms.err")"
fi

# errors
mkdir -p "$tmp/bin"
for f in /usr/bin/* /bin/*; do b=$(basename "$f"); [ "$b" = qemu-system-arm ] || [ -e "$tmp/bin/$b" ] || ln -s "$f" "$tmp/bin/$b"; done
rc=0; PATH=$tmp/bin "$MEMPLAN" profile --path $cfg > /dev/null 2> "$tmp/q.err" || rc=$?
[ $rc = 2 ] && grep -q "qemu-system-arm not found: install the Debian package qemu-system-arm" "$tmp/q.err" &&
  ok "no QEMU: $(cat "$tmp/q.err")" || bad "no QEMU: exit $rc: $(cat "$tmp/q.err")"
rc=0; "$MEMPLAN" profile --path $cfg --board mps9-x > /dev/null 2> "$tmp/u.err" || rc=$?
[ $rc = 2 ] && grep -q "unknown board 'mps9-x'" "$tmp/u.err" && ok "unknown board" || bad "unknown board: exit $rc"
rc=0; "$MEMPLAN" profile --path $cfg --module.path x > /dev/null 2> "$tmp/p.err" || rc=$?
[ $rc = 2 ] && ok "--module.path refused" || bad "--module.path: exit $rc"
left=$(ls -A "$TMPDIR")
[ -z "$left" ] && ok "no temporary folder left" || bad "left behind: $left"
exit $fail
