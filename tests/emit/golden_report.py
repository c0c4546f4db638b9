#!/usr/bin/env python3
"""golden_report.py — the kernels report (docs/KERNELS.md) from one run of
tests/suite_emit_proof.sh, which calls it as

    golden_report.py OUT 'GOLDEN_M55_CFLAGS'

and writes its standard output to OUT/KERNELS.md (and to $EMIT_PROOF_REPORT
when set; docs/kernels_md.sh does that).  It reads only what the proof left
in OUT, after every check passed:

  golden.txt                  the golden modules: prefix, image, model, sized
  modules/<p>/<p>_residency.json   the plan of each module (arenas)
  size/<p>.elf.map            the code-size link of each model's first
                              planner, cold module (GNU ld map: input
                              sections by object file)
  m55/gold<k>.log             GOLDEN CALIB / GOLDEN COUNT lines of the
                              golden images run with -icount shift=0

Nothing here measures anything: it only tabulates.  Exits non-zero when a
figure it needs is missing.
"""
import json
import os
import re
import subprocess
import sys
import time

TARGET_SUFFIX = "_m55"
PLANNER_ABBREV = {"g": "greedy", "gbs": "greedy_by_size", "hc": "hill_climb", "e": "exact"}


def die(msg):
    sys.exit("golden_report: " + msg)


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        return out.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def map_sections(path):
    """{output section: {origin: bytes}} of a GNU ld map, origin being
    'module', 'kernels', 'libc' (the C library, libm, libgcc) or 'fill'
    (alignment padding)."""
    sizes = {}
    out_sec = None
    pending = None
    in_map = False
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("Linker script and memory map"):
            in_map = True
            continue
        if not in_map:
            continue
        m = re.match(r"^(\.[\w.]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+", line)
        if m:
            out_sec = m.group(1)
            continue
        if re.match(r"^\.[\w.]+\s*$", line):
            out_sec = line.strip()
            continue
        if pending is not None:
            line = pending + " " + line.strip()
            pending = None
        m = re.match(r"^ \*fill\*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", line)
        if m and out_sec is not None:
            sizes.setdefault(out_sec, {}).setdefault("fill", 0)
            sizes[out_sec]["fill"] += int(m.group(1), 16)
            continue
        m = re.match(r"^ (\.\S+|COMMON)\s*$", line)
        if m:
            pending = " " + m.group(1)
            continue
        m = re.match(r"^ (\.\S+|COMMON)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", line)
        if not m or out_sec is None:
            continue
        size, obj = int(m.group(2), 16), m.group(3)
        base = os.path.basename(obj)
        if base.endswith("_model.o") or base.endswith("_arenas.o"):
            origin = "module"
        elif base.startswith("mpk_"):
            origin = "kernels"
        else:
            origin = "libc"
        sizes.setdefault(out_sec, {}).setdefault(origin, 0)
        sizes[out_sec][origin] += size
    return sizes


def kib(n):
    return f"{n:,}"


def size_sections(elf):
    """{section: bytes} of arm-none-eabi-size -A."""
    out = subprocess.run(["arm-none-eabi-size", "-A", elf], capture_output=True, text=True,
                         check=True).stdout
    secs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].startswith("."):
            secs[f[0]] = int(f[1])
    return secs


def main():
    if len(sys.argv) != 3:
        die("usage: golden_report.py OUT 'GOLDEN_M55_CFLAGS'")
    out, cflags = sys.argv[1], " ".join(sys.argv[2].split())
    every = []
    for line in open(os.path.join(out, "golden.txt")):
        prefix, image, model, sized = line.split()
        every.append((prefix, image, model, sized == "1"))
    # the modules converted for module.target cortex-m55 end in _m55
    mods = [m for m in every if not m[0].endswith(TARGET_SUFFIX)]
    targeted = {m[0] for m in every if m[0].endswith(TARGET_SUFFIX)}
    models = []
    for _, _, model, _ in mods:
        if model not in models:
            models.append(model)

    # instructions: ticks of SysTick under -icount shift=0, calibrated
    calib, ticks = {}, {}
    for image in sorted({m[1] for m in every}):
        for line in open(os.path.join(out, "m55", image + ".log")):
            f = line.split()
            if line.startswith("GOLDEN CALIB"):
                calib[image] = (int(f[2]), int(f[3]))
            elif line.startswith("GOLDEN COUNT"):
                ticks[f[2]] = (image, int(f[3]), int(f[4]))
    instr = {}
    for prefix, image, model, _ in every:
        if image not in calib or prefix not in ticks:
            die(f"no instruction count for {prefix} ({image})")
        c_ticks, c_instr = calib[image]
        _, t, runs = ticks[prefix]
        instr[prefix] = t * c_instr / c_ticks / runs
    ratio = {c[1] / c[0] for c in calib.values()}
    if len(ratio) != 1:
        die(f"the calibration differs between images: {sorted(ratio)}")
    per_tick = ratio.pop()

    res = {}
    for prefix, _, _, _ in every:
        res[prefix] = json.load(open(os.path.join(out, "modules", prefix, prefix + "_residency.json")))

    def arena(prefix, role, staged=None):
        for a in res[prefix]["arenas"]:
            if a["role"] == role and (staged is None or a.get("staged", False) == staged):
                return a
        return None

    w = sys.stdout.write
    commit = tool_version(["git", "rev-parse", "--short", "HEAD"])
    w("# memplan's kernels on the Cortex-M55 and Cortex-M4F: size, memory, instructions\n\n")
    w("Generated by `docs/kernels_md.sh` (tests/emit/golden_report.py) from a passing run of\n"
      "the emit proof, `tests/suite_emit_proof.sh`, on "
      f"{time.strftime('%Y-%m-%d', time.gmtime())} at commit {commit}.  Do not edit by hand.\n\n")
    w("## What the figures come from\n\n")
    w(f"Every model below is converted as `memplan convert` does (platform apollo510_evb) with\n"
      f"each of the {len(PLANNER_ABBREV)} planners and two constant placements — **cold** (weights\n"
      "read in place from MRAM) and **staged** (copied MRAM -> DTCM by `hydrate_constants` at\n"
      "`model_init`) — and each emitted module, built with memplan's reference kernels, gives\n"
      "TensorFlow Lite Micro's outputs for all three cases of the golden data bit for bit\n"
      "(float32: within 1e-5 relative error), on arenas zeroed and pre-filled with garbage, on\n"
      "the host (ASan + UBSan) and on `qemu-system-arm -M mps3-an547`.  Case 0 is also compared\n"
      "with TFLM's tensor after every operator.  The stateful models\n"
      "(`tflm_keyword_scrambled_int8`, SVDF; `tflm_mnist_lstm_int8`, UNIDIRECTIONAL_SEQUENCE_LSTM)\n"
      "run their three cases in sequence, their state kept in the persistent arena, as TFLM\n"
      "made them; the instruction count of a tiny model is a mean over runs that each start\n"
      "from a reset state.\n\n")
    w("Cortex-M55 build (the numbers below): `arm-none-eabi-gcc " + cflags + "`\n"
      f"({tool_version(['arm-none-eabi-gcc', '--version'])}); emulator: "
      f"{tool_version(['qemu-system-arm', '--version'])}.\n\n")

    # ---- per model
    w("## Per model\n\n")
    w("First planner (greedy), constants cold (weights read in place from MRAM).  Bytes.\n\n")
    w("| model | ops | code: module + kernels | read-only tables | weights | flash | "
      "scratch arena | RAM | RAM, staged | instructions / inference | "
      "target cortex-m55: scratch arena | in place | instructions / inference | fewer by |\n")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
    libc_total = 0
    for model in models:
        sized = [m for m in mods if m[2] == model and m[3]]
        if len(sized) != 1:
            die(f"{model}: {len(sized)} code-size builds")
        prefix = sized[0][0]
        sec = map_sections(os.path.join(out, "size", prefix + ".elf.map"))
        totals = size_sections(os.path.join(out, "size", prefix + ".elf"))
        for name in (".text", ".rodata", ".mp_weights", ".data", ".bss"):
            got = sum(sec.get(name, {}).values())
            if got != totals.get(name, 0):
                die(f"{prefix}: the map gives {got} bytes of {name}, size -A {totals.get(name, 0)}")
        text = sec.get(".text", {})
        libc_total += text.get("libc", 0)
        code = totals[".text"]
        tables = totals.get(".rodata", 0) + totals.get(".data", 0)
        weights = totals.get(".mp_weights", 0)
        cold = arena(prefix, "constant")
        if cold is None or weights != cold["size"]:
            die(f"{prefix}: .mp_weights holds {weights} bytes, the plan's constants "
                f"{cold and cold['size']}")
        scratch = arena(prefix, "scratch")
        persistent = arena(prefix, "persistent")
        pers = persistent["size"] if persistent else 0
        ram = totals.get(".data", 0) + totals.get(".bss", 0)
        if ram - totals.get(".data", 0) != (scratch["size"] if scratch else 0) + pers:
            die(f"{prefix}: .bss holds {ram - totals.get('.data', 0)} bytes, the plan's scratch "
                f"arena {scratch and scratch['size']} and persistent arena {pers}")
        staged_prefix = prefix.replace("_cold", "_staged")
        if staged_prefix not in res:
            die(f"{model}: no staged module")
        st_scratch = arena(staged_prefix, "scratch")
        st_const = arena(staged_prefix, "constant", True)
        st_pers = arena(staged_prefix, "persistent")
        ram_staged = (totals.get(".data", 0) + (st_scratch["size"] if st_scratch else 0) +
                      (st_pers["size"] if st_pers else 0) + (st_const["size"] if st_const else 0))
        counts = sorted(round(instr[m[0]]) for m in mods if m[2] == model)
        spread = "" if counts[-1] - counts[0] <= 2 * per_tick else f" ({counts[0]:,}–{counts[-1]:,})"
        fast = prefix + TARGET_SUFFIX
        if fast not in targeted:
            die(f"{model}: no module converted for cortex-m55")
        f_scratch = arena(fast, "scratch")
        fast_inplace = prefix.replace("_cold", "_inplace") + TARGET_SUFFIX
        if fast_inplace not in res:
            die(f"{model}: no in-place module converted for cortex-m55")
        f_inplace = arena(fast_inplace, "scratch")
        f_cell = (f"| {kib(f_scratch['size'] if f_scratch else 0)} "
                  f"| {kib(f_inplace['size'] if f_inplace else 0)} | {round(instr[fast]):,} "
                  f"| {instr[prefix] / instr[fast]:.2f}x ")
        w(f"| {model} | {res[prefix]['model']['ops']} "
          f"| {kib(code)} = {kib(text.get('module', 0))} + {kib(text.get('kernels', 0))}"
          + (f" + {kib(text['libc'])} libc" if text.get("libc") else "")
          + f" | {kib(tables)} | {kib(weights)} | {kib(code + tables + weights)} "
          f"| {kib(scratch['size'] if scratch else 0)} | {kib(ram)} | {kib(ram_staged)} "
          f"| {round(instr[prefix]):,}{spread} " + f_cell + "|\n")
    w("\n")
    w("- **code**: `.text` after `--gc-sections`: the module's `model.c` (runtime, tables'\n"
      "  accessors, the glue that calls each operator's kernel) + the kernels it uses"
      + (" + the C library functions they call.\n" if libc_total else
         "; none of\n  these links keeps a C library function (a staged module adds `memcpy`, for\n"
         "  `hydrate_constants`).\n") +
      "- **read-only tables**: `.rodata` + `.data`: tensor, operator and region tables, the\n"
      "  kernels' parameter structs (per-channel multipliers and shifts), operator names.\n"
      "- **weights**: the constant blob (`.mp_weights` in the link, checked equal to the plan's\n"
      "  constant arena).  **flash** = code + tables + weights.\n"
      "- **RAM**: `.data` + `.bss`, i.e. the scratch arena and the persistent arena of a\n"
      "  stateful model (checked equal to the plan's) and the region pointers.  **RAM,\n"
      "  staged**: the same with the plan that stages the constants in DTCM (its arenas + the\n"
      "  staged copy of the weights).\n"
      "- **instructions**: one `model_run` of case 0, no hook or callback, as counted below;\n"
      "  a range is shown when the 8 modules of the model (planners x cold/staged) differ.\n"
      "- **target cortex-m55**: the same module converted with `module.target: cortex-m55`\n"
      "  (greedy, cold): its int8 convolutions, fully connected layers, pools, SOFTMAX and\n"
      "  unbroadcast ADD and MUL run the specialised kernels' Helium paths; its scratch arena\n"
      "  holds their im2col columns too.  **in place**: its scratch arena with\n"
      "  `memory.in_place`, by the specialised kernels' own overlap contracts.  Both pass the\n"
      "  same proof (TFLM's outputs, zeroed and garbage arenas, host, Cortex-M55 and\n"
      "  Cortex-M4F, and the probe's guard bytes and in-place replay).  **fewer by**: generic\n"
      "  instructions / target instructions.\n\n")

    # ---- arenas by planner
    w("## Scratch arena by planner\n\n")
    w("Bytes of the scratch arena in DTCM (constants cold; staged plans give the same scratch\n"
      "arena unless noted).  The lower bound is the largest sum of tensors live at one\n"
      "operator.\n\n")
    w("| model | lower bound | " + " | ".join(PLANNER_ABBREV.values()) + " |\n")
    w("| --- | ---: |" + " ---: |" * len(PLANNER_ABBREV) + "\n")
    for model in models:
        cells, lb = [], None
        for ab in PLANNER_ABBREV:
            cold = [m[0] for m in mods if m[2] == model and m[0].endswith(f"_{ab}_cold")]
            if len(cold) != 1:
                die(f"{model}: no {ab} cold module")
            s = arena(cold[0], "scratch")
            st = arena(cold[0].replace("_cold", "_staged"), "scratch")
            if s and "lower_bound" in s:
                lb = s["lower_bound"]
            cell = kib(s["size"]) if s else "0"
            if (st and st["size"]) != (s and s["size"]):
                cell += f" (staged {kib(st['size']) if st else 0})"
            cells.append(cell)
        w(f"| {model} | {kib(lb) if lb is not None else '-'} | " + " | ".join(cells) + " |\n")
    w("\n")

    # ---- how measured
    w("## How the instructions are counted\n\n")
    w("QEMU runs the golden images with `-icount shift=0`: virtual time advances exactly one\n"
      "nanosecond per guest instruction, so SysTick (processor clock, wrap interrupt counted)\n"
      "counts instructions at a fixed ratio.  Each image first times a loop of exactly\n"
      "2,000,000 instructions (1,000,000 x `subs` + `bne`); every image gave the same count,\n"
      f"{per_tick:.4f} instructions per tick.  Then, for every module, `model_init` with no hook\n"
      "or callback, case 0's inputs copied in, and SysTick read around one `model_run`; a run\n"
      "under 100,000 ticks is repeated (up to 1,000 times, inputs copied again before each run\n"
      "— a plan may reuse the input's bytes) and the time of the copies alone is subtracted.\n"
      f"Resolution: one tick, {per_tick:.2f} instructions per measured span.  The range in the\n"
      "table, when shown, is over the 8 modules of a model (planners x cold/staged): the same\n"
      "kernels, other offsets.\n\n"
      "These are instructions, not cycles: QEMU models no pipeline, cache or memory wait\n"
      "states, so MRAM (cold) and DTCM (staged) weights count the same here although they do\n"
      "not on silicon.\n\n")
    w("## How the code is measured\n\n")
    w("Each model's first-planner cold module is compiled on its own with the flags above\n"
      "(weights placed in a section `.mp_weights` of their own) and linked with the kernels and\n"
      "newlib-nano: `arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -nostartfiles\n"
      "--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -Wl,-e,<p>_model_run\n"
      "-Wl,-u,<p>_model_init`, i.e. keeping what `model_init` and `model_run` reach.  The\n"
      "split by origin comes from the link map (`-Wl,-Map`); `arm-none-eabi-size -A` on the\n"
      "same ELF gives the section totals.\n")


if __name__ == "__main__":
    main()
