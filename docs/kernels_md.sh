#!/usr/bin/env bash
# Regenerate docs/KERNELS.md, the kernels report: code size, arena sizes and
# instructions per inference of every model memplan runs, on the Cortex-M55.
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
echo "wrote docs/KERNELS.md"
