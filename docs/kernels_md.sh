#!/usr/bin/env bash
# Regenerate docs/KERNELS.md, the kernels report: code size, arena sizes and
# instructions per inference of every model memplan runs, on the Cortex-M55;
# the specialised kernels of module.target against the reference ones on
# the Cortex-M55 and Cortex-M4F (tests/test_golden.c); against TensorFlow
# Lite Micro with Arm's CMSIS-NN on the same emulated cores; memory.in_place's
# cost in instructions and the SVDF and LSTM models' speed-up
# (`memplan profile`, docs/speed_profile.sh); and the speed targets, which
# bench/speed_rows.sh then copies into bench/RESULTS.md.
# The figures come from a passing run of the emit proof
# (tests/suite_emit_proof.sh, which writes them with tests/emit/golden_report.py),
# one run of tests/test_golden.c and the profiles; they need ../shared/models,
# ../shared/golden, arm-none-eabi-gcc and qemu-system-arm, and take from
# twenty minutes to an hour.
#   docs/kernels_md.sh
# Environment:
#   TFLM_ANCHORS   TFLM + CMSIS-NN's instructions per operator, a CSV of
#                  model,target,op_index,op_name,instructions (target M55 or
#                  M4F, op_index -1 for one whole Invoke) with a README.md
#                  beside it; default ../shared/anchors/tflm_cmsis_nn_per_op.csv.
#                  Without it the comparison says it was not measured.
#   IN_PLACE_MODES the memory.in_place values to profile ("false true").
#   KERNELS_MD_KEEP=DIR  keep the measurements in DIR (the emit proof's
#                  report, test_golden's tables, the profiles, the commit);
#   KERNELS_MD_FROM=DIR  write the page from them instead of measuring
#                  again, when nothing they depend on has changed since
#                  (DIR/commit; DIR/proof.commit and DIR/profiles/commit
#                  when those were measured at another); KERNELS_MD_STALE_OK=1
#                  writes it anyway, the page saying which sources changed.
set -euo pipefail
cd "$(dirname "$0")/.."
anchors=${TFLM_ANCHORS:-../shared/anchors/tflm_cmsis_nn_per_op.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { [ -f "$tmp/log" ] && tail -n 30 "$tmp/log"; echo "kernels_md: $*" >&2; exit 1; }
m=$tmp/m # the measurements
if [ -n "${KERNELS_MD_FROM:-}" ]; then
  cp -r "$KERNELS_MD_FROM" "$m"
  # valid while nothing they build, run or report has changed since the
  # commit they were measured at: DIR/commit, or DIR/proof.commit for the
  # emit proof's report and DIR/profiles/commit for the profiles
  [ -f "$m/commit" ] || fail "$KERNELS_MD_FROM/commit: absent"
  [ -f "$m/proof.commit" ] || cp "$m/commit" "$m/proof.commit"
  [ -f "$m/profiles/commit" ] || cp "$m/commit" "$m/profiles/commit"
  stale=
  git diff --quiet "$(cat "$m/proof.commit")" -- src runtime cli include tests/emit \
    tests/target tests/support tests/suite_emit_proof.sh tests/expected_refusals.txt Makefile ||
    stale="the emit proof's sources changed since $(cat "$m/proof.commit")"
  git diff --quiet "$(cat "$m/commit")" -- src runtime include tests/test_golden.c ||
    stale="${stale:+$stale; }tests/test_golden.c's sources changed since $(cat "$m/commit")"
  git diff --quiet "$(cat "$m/profiles/commit")" -- src runtime cli include ||
    stale="${stale:+$stale; }the profiles' sources changed since $(cat "$m/profiles/commit")"
  if [ -n "$stale" ] && [ -z "${KERNELS_MD_STALE_OK:-}" ]; then
    fail "$stale: measure again (unset KERNELS_MD_FROM), or KERNELS_MD_STALE_OK=1 to" \
      "say so on the page"
  fi
else
  make -s MODE=asan tests
  mkdir -p "$m"
  git rev-parse --short HEAD > "$m/commit"
  MODE=asan EMIT_PROOF_REPORT="$m/KERNELS.md" bash tests/suite_emit_proof.sh > "$tmp/log" 2>&1 ||
    fail "the emit proof failed"
  # the specialised kernels (module.target): tests/test_golden.c runs every
  # model on the emulated Cortex-M55 and Cortex-M4F lowered both ways, each
  # image once whole and once timed op by op (-DPER_OP)
  GOLDEN_TARGET_TABLE="$m/rows" GOLDEN_PER_OP=1 GOLDEN_OPS_TABLE="$m/ops" \
    build/asan/tests/test_golden > "$tmp/log" 2>&1 || fail "test_golden failed"
  docs/speed_profile.sh "$m/profiles" > "$tmp/log" 2>&1 || fail "docs/speed_profile.sh failed"
  rm -f "$tmp/log"
  if [ -n "${KERNELS_MD_KEEP:-}" ]; then
    rm -rf "$KERNELS_MD_KEEP"
    cp -r "$m" "$KERNELS_MD_KEEP"
  fi
fi
test -s "$m/KERNELS.md" || fail "the emit proof wrote no report"
[ "$(grep -c '^| Cortex-M' "$m/rows")" -ge 2 ] ||
  fail "test_golden measured no target (toolchain or QEMU absent?)"
[ -f "$m/proof.commit" ] || cp "$m/commit" "$m/proof.commit"
[ -f "$m/profiles/commit" ] || cp "$m/commit" "$m/profiles/commit"
# the header names the commits the figures were measured at
python3 - "$m/KERNELS.md" "$(cat "$m/proof.commit")" "$(cat "$m/commit")" \
  "$(cat "$m/profiles/commit")" "${stale:-}" > "$tmp/KERNELS.md" <<'PY'
import re, sys
page, proof_at, at, pat, stale = sys.argv[1:]
text = open(page).read()
text, n = re.subn(r"at commit \w+\.  Do not edit by hand\.",
                  f"at commit {proof_at}.  Do not edit by hand.", text, count=1)
if n != 1:
    sys.exit("kernels_md: the emit proof's report names no commit")
note = ""
if at != proof_at:
    note += f"  The tests/test_golden.c figures were measured at commit {at}."
if pat != at:
    note += f"  The `memplan profile` figures were measured at commit {pat}."
if stale:
    note += f"  The sources have changed since ({stale}): the figures are those commits'."
sys.stdout.write(text.replace("Do not edit by hand.", "Do not edit by hand." + note, 1))
PY
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
  cat "$m/rows"
} >> "$tmp/KERNELS.md"
# each operator's kernel and instructions: the same runs, timed op by op
python3 - "$m/ops" >> "$tmp/KERNELS.md" <<'EOF'
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
if [ -f "$anchors" ]; then
  python3 docs/speed_md.py --rows "$m/rows" --ops "$m/ops" --profiles "$m/profiles" \
    --anchors "$anchors" >> "$tmp/KERNELS.md"
else
  echo "kernels_md: no TFLM + CMSIS-NN figures ($anchors): the comparison says not measured" >&2
  python3 docs/speed_md.py --rows "$m/rows" --ops "$m/ops" --profiles "$m/profiles" \
    >> "$tmp/KERNELS.md"
fi
mv "$tmp/KERNELS.md" docs/KERNELS.md
bench/speed_rows.sh docs/KERNELS.md bench/RESULTS.md
echo "wrote docs/KERNELS.md and the kernels rows of bench/RESULTS.md"
