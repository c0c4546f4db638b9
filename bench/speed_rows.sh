#!/bin/sh
# bench/speed_rows.sh — copy the kernels' speed targets into the targets
# table of bench/RESULTS.md.
#   bench/speed_rows.sh [KERNELS.md [RESULTS.md]]
# The rows are those of docs/KERNELS.md's "Speed targets" table (written by
# docs/kernels_md.sh from its measurements, docs/speed_md.py); they
# replace the page's "| kernels:" rows, which go at the end of its targets
# table, each saying which docs/KERNELS.md it comes from.  bench/run.sh calls
# this after the benchmark rewrites the page, so a run of the benchmark
# keeps the latest kernels measurement rather than measuring it again.
set -eu
cd "$(dirname "$0")/.."
kernels=${1:-docs/KERNELS.md}
page=${2:-bench/RESULTS.md}
[ -f "$kernels" ] && [ -f "$page" ] || { echo "speed_rows: no $kernels or $page" >&2; exit 1; }
python3 - "$kernels" "$page" <<'PY'
import re, sys
kernels, page = sys.argv[1], sys.argv[2]
k = open(kernels).read()
m = re.search(r"on (\d{4}-\d{2}-\d{2}) at commit (\w+)", k)
src = f"docs/KERNELS.md of {m.group(1)}, commit {m.group(2)}" if m else "docs/KERNELS.md"
part = k.split("\n## Speed targets\n", 1)
if len(part) != 2:
    sys.exit(f"speed_rows: {kernels} has no Speed targets table")
rows = []
for line in part[1].split("\n## ", 1)[0].splitlines():
    if line.startswith("| kernels:"):
        cells = line.split(" | ")
        cells[1] += f" ({src})"
        rows.append(" | ".join(cells))
if not rows:
    sys.exit(f"speed_rows: {kernels}'s Speed targets table has no row")
lines = open(page).read().split("\n")
try:
    t = lines.index("## Targets")
except ValueError:
    sys.exit(f"speed_rows: {page} has no targets table")
end = t + 1
while end < len(lines) and (not lines[end].startswith("## ")):
    end += 1
table = [l for l in lines[t:end] if not l.startswith("| kernels:")]
last = max(i for i, l in enumerate(table) if l.startswith("|"))
table[last + 1:last + 1] = rows
open(page, "w").write("\n".join(lines[:t] + table + lines[end:]))
PY
