#!/usr/bin/env python3
"""speed_md.py — the speed sections of docs/KERNELS.md and their targets.

    speed_md.py --rows ROWS --ops OPS --profiles DIR [--anchors CSV]

ROWS and OPS are what tests/test_golden.c writes with GOLDEN_TARGET_TABLE
and GOLDEN_PER_OP=1 GOLDEN_OPS_TABLE (the kernels run directly on QEMU,
generic and the core's target, case 0); DIR holds docs/speed_profile.sh's
`memplan profile --json` runs; CSV gives TensorFlow Lite Micro with
CMSIS-NN's instructions per operator and per inference on the same boards
(columns model,target,op_index,op_name,instructions; target M55 or M4F;
op_index -1 / TOTAL is one whole Invoke without the per-operator hook),
and the README.md beside it, when present, the versions it was measured
with and TFLM's code size.  Without the CSV the comparison is skipped with a
line saying so.

Prints markdown: the comparison with TFLM + CMSIS-NN, memory.in_place's
cost in instructions, the SVDF and LSTM models generic against cortex-m55,
the code, and a "Speed targets" table whose rows start with "| kernels:"
(bench/speed_rows.sh copies them into bench/RESULTS.md).  Nothing here
measures anything: it only tabulates.  Exits non-zero when a figure it
needs is missing.
"""
import argparse
import csv
import glob
import json
import os
import re
import sys

CORES = [("Cortex-M55", "M55", "mps3-an547", "cortex-m55"),
         ("Cortex-M4F", "M4F", "mps2-an386", "cortex-m4")]
STATEFUL = ["tflm_keyword_scrambled_int8", "tflm_mnist_lstm_int8", "tflm_dtln",
            "ambiq_nnse_lstm_int8"]
IN_PLACE_LIMIT = 1.05  # at most 5 % more instructions with memory.in_place
STATEFUL_FACTOR = 3.0  # cortex-m55 at least 3x fewer than generic on the M55


def die(msg):
    sys.exit("speed_md: " + msg)


def n(v):
    return f"{v:,}"


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def read_rows(path):
    """{(core, model): (generic, target, text generic, text target)} of the target table."""
    out = {}
    for line in open(path):
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) != 8 or not f[0].startswith("Cortex-M"):
            continue
        out[(f[0], f[1])] = (int(f[2]), int(f[3]), int(f[5]), int(f[6]))
    return out


def read_ops(path):
    """{(core, model): [(op, name, kernel, instructions)]} of the target lowering's rows."""
    out = {}
    for line in open(path):
        core, model, op, target, name, kernel, instr = line.rstrip("\n").split("\t")
        if target == "generic":
            continue
        out.setdefault((core, model), []).append((int(op), name, kernel, int(instr)))
    for v in out.values():
        v.sort()
    return out


def read_anchors(path):
    """{(short core, model): {"total": n, "ops": {op: (name, n)}}}."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            a = out.setdefault((r["target"], r["model"]), {"total": None, "ops": {}})
            i = int(r["op_index"])
            if i < 0:
                a["total"] = int(r["instructions"])
            else:
                a["ops"][i] = (r["op_name"], int(r["instructions"]))
    return out


def read_anchor_readme(csv_path):
    """(versions line or None, {model: TFLM + CMSIS-NN code bytes on the M55})."""
    path = os.path.join(os.path.dirname(csv_path), "README.md")
    versions, code = None, {}
    if not os.path.exists(path):
        return versions, code
    in_versions = False
    for line in open(path):
        m = re.match(r"^- Versions:\s*(.*)", line)
        if m or (in_versions and line.startswith("  ")):
            versions = ((versions + " ") if versions else "") + (m.group(1) if m else line).strip()
            in_versions = True
            continue
        in_versions = False
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if versions:
            versions = versions.rstrip(".;, ")
        if len(f) == 5 and re.match(r"^[a-z0-9_]+$", f[0]) and all(
                re.match(r"^[\d,]+$", c) for c in f[1:]):
            code[f[0]] = int(f[4].replace(",", ""))
    return versions, code


def read_profiles(d):
    """{(model, board, tag): profile JSON}."""
    out = {}
    for p in glob.glob(os.path.join(d, "*.json")):
        model, board, tag = os.path.basename(p)[:-len(".json")].split(".")
        out[(model, board, tag)] = json.load(open(p))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--ops", required=True)
    ap.add_argument("--profiles", required=True)
    ap.add_argument("--anchors")
    a = ap.parse_args()
    rows, ops, prof = read_rows(a.rows), read_ops(a.ops), read_profiles(a.profiles)
    if not rows or not ops:
        die("no rows from test_golden")
    if not prof:
        die(f"no profiles in {a.profiles}")
    w = sys.stdout.write
    targets = []  # (target, measured, verdict)

    def verdict(ok):
        return "**PASS**" if ok else "**FAIL**"

    # ---- TFLM + CMSIS-NN
    w("\n## Against TFLM with CMSIS-NN\n\n")
    anchors = read_anchors(a.anchors) if a.anchors and os.path.exists(a.anchors) else None
    if anchors is None:
        w("Not measured: this run had no file of TFLM + CMSIS-NN figures "
          "(`docs/kernels_md.sh` takes it as `TFLM_ANCHORS=FILE`).\n\n")
        targets.append(("kernels: at most TFLM + CMSIS-NN's instructions per inference, "
                        "MLPerf Tiny models, Cortex-M55 and Cortex-M4F",
                        "not measured (no TFLM + CMSIS-NN figures)", "-"))
    else:
        versions, tflm_code = read_anchor_readme(a.anchors)
        models = sorted({m for (_, m) in anchors})
        for core, short, _, _ in CORES:
            for m in models:
                if (short, m) not in anchors or anchors[(short, m)]["total"] is None:
                    die(f"the TFLM figures have no total for {m} on {short}")
                if (core, m) not in rows or (core, m) not in ops:
                    die(f"test_golden measured no {m} on the {core}")
                if len(ops[(core, m)]) != len(anchors[(short, m)]["ops"]):
                    die(f"{m} on the {core}: {len(ops[(core, m)])} operators, TFLM "
                        f"{len(anchors[(short, m)]['ops'])}")
                for op, name, _, _ in ops[(core, m)]:
                    if anchors[(short, m)]["ops"].get(op, ("",))[0] != name:
                        die(f"{m} op {op}: {name}, TFLM's row says "
                            f"{anchors[(short, m)]['ops'].get(op, ('none',))[0]}")
        w("TensorFlow Lite Micro with Arm's CMSIS-NN kernels"
          + (f" ({versions})" if versions else "") +
          ", built `-O2` with the same `-mcpu` and float flags as memplan's kernels here and "
          "run on the same two QEMU boards with the same counting: `-icount shift=0`, SysTick "
          "calibrated on a busy loop of known length, case 0 of the golden inputs, every output "
          "compared with TFLM's reference.  Its per-inference figure is one whole `Invoke` "
          "without any per-operator hook; its per-operator figures come from TFLM's profiler "
          "interface reading the same clock around each operator (that hook costs about 70 "
          "instructions per operator).  These are instructions, not cycles, for both.\n\n")
        w("memplan's side, as above: **kernels** is the specialised kernels run directly "
          "(tests/test_golden.c, `module.target` cortex-m55 on the M55 and cortex-m4 on the "
          "M4F, one buffer per tensor), one inference without per-operator reads; its "
          "per-operator figures are the `-DPER_OP` build's (SysTick read around each kernel "
          "call, a few instructions).  **module** is the module `memplan profile` converts, "
          "builds and runs (greedy, constants in MRAM, the planned arenas, "
          "`memory.in_place` off), with its per-operator callback: the glue between "
          "operators and the callback included.  What differs: TFLM's `Invoke` includes its "
          "interpreter's dispatch, memplan's kernels figure none; work done once before the "
          "first inference (TFLM's `Prepare`, where its fully connected kernel sums its "
          "weights, memplan's convert time and `model_init`) is in neither.  **ratio** is "
          "memplan / TFLM: below 1, memplan runs fewer instructions.\n\n")
        w("### Per inference\n\n")
        w("| model | core | memplan kernels | memplan module | TFLM + CMSIS-NN | ratio | "
          "ratio, module |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
        at_or_below, worst = 0, None
        for m in models:
            for core, short, board, _ in CORES:
                mine = rows[(core, m)][1]
                theirs = anchors[(short, m)]["total"]
                p = prof.get((m, board, "in_place-false"))
                mod = p["instructions_run"] if p else None
                r = mine / theirs
                at_or_below += mine <= theirs
                if worst is None or r > worst[0]:
                    worst = (r, m, core)
                w(f"| {m} | {core} | {n(mine)} | {n(mod) if mod else '-'} | {n(theirs)} "
                  f"| {r:.3f}{' (above)' if mine > theirs else ''} "
                  f"| {f'{mod / theirs:.3f}' if mod else '-'} |\n")
        w("\n")
        targets.append((
            "kernels: at most TFLM + CMSIS-NN's instructions per inference, "
            f"{len(models)} MLPerf Tiny models x Cortex-M55 and Cortex-M4F",
            f"{at_or_below} of {len(models) * len(CORES)}; highest ratio {worst[0]:.3f} "
            f"({worst[1]}, {worst[2]})", verdict(at_or_below == len(models) * len(CORES))))

        w("### Per operator type\n\n")
        w("Each model's operators of one type added up (the per-operator figures of both "
          "sides).\n\n")
        w("| model | core | operator | ops | memplan | TFLM + CMSIS-NN | ratio |\n"
          "| --- | --- | --- | ---: | ---: | ---: | ---: |\n")
        for m in models:
            for core, short, _, _ in CORES:
                by = {}
                for op, name, _, v in ops[(core, m)]:
                    s = by.setdefault(name, [0, 0, 0])
                    s[0] += 1
                    s[1] += v
                    s[2] += anchors[(short, m)]["ops"][op][1]
                for name in sorted(by, key=lambda k: -by[k][2]):
                    c, mine, theirs = by[name]
                    w(f"| {m} | {core} | {name} | {c} | {n(mine)} | {n(theirs)} "
                      f"| {ratio(mine, theirs)}{' (above)' if mine > theirs else ''} |\n")
        w("\n")

        w("### Per operator\n\n")
        w("**above**: the operator runs more instructions than TFLM + CMSIS-NN's (a view "
          "memplan elides runs 0 against TFLM's copy or hook).  Both sides read SysTick, one "
          "tick being 31.25 instructions on the M55 board and 40 on the M4F board, so a "
          "difference of a tick or two is within the measurement's resolution.\n")
        above = []
        for m in models:
            w(f"\n#### {m}\n\n")
            w("| op | operator | memplan kernel | M55 | TFLM M55 | ratio | M4F | TFLM M4F "
              "| ratio |\n| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
            by_core = {core: {op: (name, k, v) for op, name, k, v in ops[(core, m)]}
                       for core, _, _, _ in CORES}
            for op in sorted(by_core["Cortex-M55"]):
                name, kernel, _ = by_core["Cortex-M55"][op]
                cells = []
                for core, short, _, _ in CORES:
                    mine = by_core[core][op][2]
                    theirs = anchors[(short, m)]["ops"][op][1]
                    hi = mine > theirs
                    if hi:
                        above.append((m, op, name, short, mine, theirs))
                    cells.append(f"{n(mine)} | {n(theirs)} | "
                                 f"{'**' if hi else ''}{ratio(mine, theirs)}"
                                 f"{' above**' if hi else ''}")
                w(f"| {op} | {name} | `{kernel}` | " + " | ".join(cells) + " |\n")
        w("\n")
        if above:
            w(f"{len(above)} operator runs above TFLM + CMSIS-NN's:\n\n")
            for m, op, name, short, mine, theirs in above:
                w(f"- {m} op {op} {name} on the {short}: {n(mine)} against {n(theirs)} "
                  f"({mine / theirs:.2f})\n")
        else:
            w("No operator runs above TFLM + CMSIS-NN's.\n")
        w("\n")
        n_ops = sum(len(ops[(c, m)]) for m in models for c, _, _, _ in CORES)
        targets.append(("kernels: every operator at most TFLM + CMSIS-NN's instructions "
                        f"({len(models)} MLPerf Tiny models, both cores)",
                        f"{n_ops - len(above)} of {n_ops} (operator, core) pairs at or below",
                        verdict(not above)))

    # ---- memory.in_place
    modes = sorted({t[len("in_place-"):] for (_, _, t) in prof if t.startswith("in_place-")})
    if "false" not in modes or len(modes) < 2:
        die(f"the profiles have memory.in_place {modes}: need false and at least one other")
    others = [x for x in modes if x != "false"]
    judged = "speed" if "speed" in others else others[0]
    w("## memory.in_place: instructions\n\n")
    w("`memplan profile --board BOARD --memory.in_place=MODE --json` of every corpus model "
      "with golden inputs (docs/speed_profile.sh): converted for the board's core (greedy, "
      "constants in MRAM, scratch in DTCM), built `-O2`, run once on case 0's inputs under "
      "QEMU `-icount shift=0`; instructions of one `model_run` with the per-operator "
      "callback (the same in every mode).  **more by**: MODE against `false`.  "
      f"Target: with `memory.in_place: {judged}`, at most "
      f"{round((IN_PLACE_LIMIT - 1) * 100)} % more instructions than without"
      + ("; `size` (and `true`) may spend instructions for bytes, running a depthwise "
         "convolution channel by channel where that lowers the in-place bound"
         if judged == "speed" else "") + ".\n\n")
    w("| model | core | false | " + " | ".join(others) + " | " +
      " | ".join(f"more by, {x}" for x in others) + " | kernels that change |\n")
    w("| --- | --- | ---: | " + "---: | " * (2 * len(others)) + "--- |\n")
    within, total_ip, worst = 0, 0, None
    ip_models = sorted({m for (m, _, t) in prof if t == "in_place-false"})
    for m in ip_models:
        for core, _, board, _ in CORES:
            base = prof.get((m, board, "in_place-false"))
            if base is None:
                die(f"no in_place false profile of {m} on {board}")
            b = base["instructions_run"]
            cells, more, changed = [], [], set()
            for x in others:
                p = prof.get((m, board, "in_place-" + x))
                if p is None:
                    die(f"no in_place {x} profile of {m} on {board}")
                v = p["instructions_run"]
                cells.append(n(v))
                more.append(f"{(v / b - 1) * 100:+.1f} %")
                for o0, o1 in zip(base["ops"], p["ops"]):
                    if o0["kernel"] != o1["kernel"]:
                        changed.add(f"{o0['operator']} `{o0['kernel'] or '(view)'}` -> "
                                    f"`{o1['kernel'] or '(view)'}`")
                if len(base["ops"]) != len(p["ops"]):
                    changed.add(f"{len(base['ops'])} -> {len(p['ops'])} operators")
                if x == judged:
                    total_ip += 1
                    within += v <= b * IN_PLACE_LIMIT
                    if worst is None or v / b > worst[0]:
                        worst = (v / b, m, core)
            w(f"| {m} | {core} | {n(b)} | " + " | ".join(cells) + " | " + " | ".join(more) +
              " | " + ("; ".join(sorted(changed)) if changed else "none") + " |\n")
    w("\n")
    targets.append((f"kernels: memory.in_place {judged} at most 5 % more instructions than off, "
                    "every corpus model, Cortex-M55 and Cortex-M4F (`memplan profile`)",
                    f"{within} of {total_ip}; worst {(worst[0] - 1) * 100:+.1f} % "
                    f"({worst[1]}, {worst[2]})", verdict(within == total_ip)))

    # ---- SVDF and LSTM
    w("## SVDF and LSTM models: `generic` against `cortex-m55`\n\n")
    w("The same profiles on the Cortex-M55, `--module.target generic` against the board's "
      f"`cortex-m55` (`memory.in_place` off).  Target: at least {STATEFUL_FACTOR:.0f}x fewer "
      "instructions with `cortex-m55`.\n\n")
    w("| model | generic | cortex-m55 | fewer by | SVDF and LSTM operators: generic "
      "| cortex-m55 |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: |\n")
    ok, seen, low = 0, 0, None
    for m in STATEFUL:
        g = prof.get((m, "mps3-an547", "generic"))
        t = prof.get((m, "mps3-an547", "in_place-false"))
        if g is None or t is None:
            die(f"no generic or cortex-m55 profile of {m}")
        seen += 1
        f = g["instructions_run"] / t["instructions_run"]
        ok += f >= STATEFUL_FACTOR
        if low is None or f < low[0]:
            low = (f, m)
        st = ("SVDF", "UNIDIRECTIONAL_SEQUENCE_LSTM", "LSTM")
        sg = sum(o["instructions"] for o in g["ops"] if o["operator"] in st)
        stt = sum(o["instructions"] for o in t["ops"] if o["operator"] in st)
        w(f"| {m} | {n(g['instructions_run'])} | {n(t['instructions_run'])} | {f:.2f}x "
          f"| {n(sg) if sg else '-'} | {n(stt) if stt else '-'} |\n")
    w("\n")
    targets.append(("kernels: SVDF and LSTM models at least 3x fewer instructions with "
                    "cortex-m55 than generic on the Cortex-M55 (" + ", ".join(STATEFUL) + ")",
                    f"{ok} of {seen}; lowest {low[0]:.2f}x ({low[1]})", verdict(ok == seen)))

    # ---- code
    w("## Code\n\n")
    w("`.text` of the images above, in bytes: **kernels image** is test_golden's (the "
      "kernels, its harness and start-up, no module glue) for the core's target; "
      "**profiled image** is `memplan profile`'s (module, kernels, its harness with "
      "semihosting output and the C library functions they call).  TFLM + CMSIS-NN's code "
      "is the `.text` of TFLM, CMSIS-NN and the C library functions they pull, without the "
      "model or its harness, on the Cortex-M55, as measured with the figures above.\n\n")
    tflm_code = read_anchor_readme(a.anchors)[1] if anchors is not None else {}
    w("| model | M55 kernels image | M55 profiled image | M4F kernels image | "
      "M4F profiled image | TFLM + CMSIS-NN (M55) |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: |\n")
    for m in sorted({m for (_, m) in rows}):
        cells = []
        for core, _, board, _ in CORES:
            r = rows.get((core, m))
            p = prof.get((m, board, "in_place-false"))
            cells.append(n(r[3]) if r else "-")
            cells.append(n(p["image_bytes"]["text"]) if p else "-")
        w(f"| {m} | " + " | ".join(cells) + f" | {n(tflm_code[m]) if m in tflm_code else '-'} |\n")
    w("\n")
    if tflm_code:
        smaller = [m for m in tflm_code if ("Cortex-M55", m) in rows and
                   rows[("Cortex-M55", m)][3] <= tflm_code[m]]
        targets.append(("kernels: code, the M55 kernels image against TFLM + CMSIS-NN's code",
                        f"{len(smaller)} of {len(tflm_code)} no larger", "measured"))

    # ---- targets
    w("## Speed targets\n\n")
    w("The targets of the sections above (bench/RESULTS.md repeats these rows).\n\n")
    w("| target | measured | |\n|---|---|---|\n")
    for t, mz, v in targets:
        w(f"| {t} | {mz} | {v} |\n")


if __name__ == "__main__":
    main()
