#!/usr/bin/env bash
# Regenerate docs/KERNELS.md, the kernels report: code size, arena sizes and
# instructions per inference of every model memplan runs, on the Cortex-M55,
# and the specialised kernels of module.target against the reference ones on
# the Cortex-M55 and Cortex-M4F (tests/test_golden.c).
# The figures come from a passing run of the emit proof
# (tests/suite_emit_proof.sh, which writes them with tests/emit/golden_report.py);
# it needs ../shared/models, ../shared/golden, arm-none-eabi-gcc and
# qemu-system-arm, and takes a few minutes.
#   docs/kernels_md.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make -s MODE=asan tests
log=$(mktemp)
MODE=asan EMIT_PROOF_REPORT="$PWD/docs/KERNELS.md" bash tests/suite_emit_proof.sh > "$log" 2>&1 ||
  { tail -n 30 "$log"; rm -f "$log"; echo "kernels_md: the emit proof failed" >&2; exit 1; }
rm -f "$log"
test -s docs/KERNELS.md || { echo "kernels_md: the emit proof wrote no report" >&2; exit 1; }
# the specialised kernels (module.target): tests/test_golden.c runs every
# model on the emulated Cortex-M55 and Cortex-M4F lowered both ways
rows=$(mktemp)
log=$(mktemp)
GOLDEN_TARGET_TABLE="$rows" build/asan/tests/test_golden > "$log" 2>&1 ||
  { tail -n 30 "$log"; rm -f "$log" "$rows"; echo "kernels_md: test_golden failed" >&2; exit 1; }
rm -f "$log"
[ "$(grep -c '^| Cortex-M' "$rows")" -ge 2 ] ||
  { rm -f "$rows"; echo "kernels_md: test_golden measured no target (toolchain or QEMU absent?)" >&2; exit 1; }
{
  cat <<'EOF'

## Specialised kernels: `generic` against the target path

Each model's kernels run directly (one buffer per tensor, no module glue),
lowered once for `module.target: generic` (the reference kernels) and once
for the core's target (the specialised int8 CONV_2D, DEPTHWISE_CONV_2D,
FULLY_CONNECTED, AVERAGE_POOL_2D, MAX_POOL_2D, SOFTMAX and unbroadcast ADD
and MUL kernels; the other operators keep the reference kernels),
built `-O2` for the core and run on QEMU: the Cortex-M55 (`-mcpu=cortex-m55
-mfloat-abi=hard`, Helium paths) on `mps3-an547`, the Cortex-M4F
(`-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16`, DSP paths) on
`mps2-an386`.  Both give TFLM's outputs for all three cases on
garbage-filled buffers (tests/test_golden.c).  Instructions per inference
are counted as above (`-icount shift=0`, SysTick calibrated by a
2,000,000-instruction loop, case 0).  **text**: `.text` of the whole
image (kernels, harness, start-up; no module glue).  **im2col scratch**: the
largest op-local scratch the target lowering asks for (bytes: the im2col
columns, or in the stateful models the SVDF and LSTM kernels' own buffers),
planned with the other tensors.

What QEMU does not model: instructions are not cycles.  There are no wait
states (flash, MRAM or SRAM), no caches, no pipeline; a Helium instruction
counts as one although the M55 executes most of them in two beats over two
cycles, and an `SMLAD` counts as one on the M4 as on silicon.  So the
ratios below are ratios of instructions executed, not of time.

| core | model | generic | target | ratio | text, generic | text, target | im2col scratch |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
  cat "$rows"
} >> docs/KERNELS.md
rm -f "$rows"
# each operator's kernel and instructions: the same runs, timed op by op
ops=$(mktemp)
log=$(mktemp)
GOLDEN_PER_OP=1 GOLDEN_OPS_TABLE="$ops" build/asan/tests/test_golden > "$log" 2>&1 ||
  { tail -n 30 "$log"; rm -f "$log" "$ops"; echo "kernels_md: test_golden (per op) failed" >&2; exit 1; }
rm -f "$log"
python3 - "$ops" >> docs/KERNELS.md <<'EOF'
import sys
rows = {}
models = []
for line in open(sys.argv[1]):
    core, model, op, target, name, kernel, instr = line.rstrip("\n").split("\t")
    if model not in models:
        models.append(model)
    r = rows.setdefault((model, int(op)), {"name": name})
    side = "generic" if target == "generic" else "target"
    r[side + "_kernel"] = kernel
    r[(core, side)] = int(instr)
w = sys.stdout.write
w("\n## Which kernel each operator runs\n\n"
  "The kernel the lowering picks for every operator, for `generic` and for a Cortex-M\n"
  "target (every Cortex-M target picks the same kernels; the compiler picks their\n"
  "Helium or DSP path), and the instructions of each operator in case 0, measured\n"
  "as above with SysTick read around every operator (`-DPER_OP` builds of the same\n"
  "programs; the reads add a few instructions per operator; resolution one SysTick\n"
  "tick, tens of instructions).  The summary\n"
  "`memplan convert` prints lists the same kernels for the module it writes.\n")
for model in models:
    ops = sorted(k[1] for k in rows if k[0] == model)
    w(f"\n### {model}\n\n")
    w("| op | operator | generic kernel | M55 | M4F | target kernel | M55 | M4F |\n")
    w("| ---: | --- | --- | ---: | ---: | --- | ---: | ---: |\n")
    for op in ops:
        r = rows[(model, op)]
        cell = lambda core, side: f"{r[(core, side)]:,}" if (core, side) in r else "-"
        w(f"| {op} | {r['name']} | `{r.get('generic_kernel', '-')}` "
          f"| {cell('Cortex-M55', 'generic')} | {cell('Cortex-M4F', 'generic')} "
          f"| `{r.get('target_kernel', '-')}` "
          f"| {cell('Cortex-M55', 'target')} | {cell('Cortex-M4F', 'target')} |\n")
EOF
rm -f "$ops"
echo "wrote docs/KERNELS.md"
