#!/bin/sh
# bench/run.sh — run memplan's benchmark and write bench/RESULTS.md.
#
# `make bench` builds the release binaries and calls this.  Extra arguments
# go to the bench program (build/release/bench --help lists them), e.g.
#   ./bench/run.sh --runs 9 --hard-count 60
# and --only SECTION,... (corpus, in-place, scale, rate, hard, coarse, grid,
# minimalloc, patch) measures only those sections and rewrites only them and their
# targets rows in bench/RESULTS.md, keeping the rest of the page as it is;
# its header then gains a line saying what that run measured and when, e.g.
#   ./bench/run.sh --only in-place
# The targets table's "kernels:" rows are not measured here: they are
# docs/KERNELS.md's (docs/kernels_md.sh), copied by bench/speed_rows.sh.
# MiniMalloc's public challenging instances are measured when MINIMALLOC_DIR
# names a folder holding them (A.1048576.csv ... K.1048576.csv from
# MiniMalloc's benchmarks/asplos2024); they are not part of the repository,
# and without the folder the page says they were not measured.  With a
# MiniMalloc binary (MINIMALLOC_BIN=PATH or --minimalloc-bin PATH) each
# instance is solved by MiniMalloc too, in the same run, and the page gives
# the ratio; without one it gives memplan's times alone and judges no target
# against anyone else's numbers.
# The page records the compiler and the flags of the release build (read
# from the Makefile), the machine and the date.  bench/before.md, a
# measurement of the previous hill_climb kept for comparison, is appended.
set -eu
cd "$(dirname "$0")/.."
BUILD=build/release
[ -x "$BUILD/bench" ] || { echo "bench/run.sh: no $BUILD/bench; run 'make bench'" >&2; exit 1; }
CC_USED=$(make -s --no-print-directory -pn MODE=release 2>/dev/null | sed -n 's/^CC = //p' | head -n 1)
FLAGS=$(make -s --no-print-directory -pn MODE=release 2>/dev/null | sed -n 's/^CFLAGS_ALL := //p' | head -n 1)
COMPILER=$(${CC_USED:-cc} --version 2>/dev/null | head -n 1)
# memplan's held-out networks (mkmodel --list-nets) join the in-place table
nets=$(mktemp -d)
trap 'rm -rf "$nets"' EXIT
held=
for n in $("$BUILD/mkmodel" --list-nets); do
  "$BUILD/mkmodel" fixture "$n" "$nets/$n.tflite"
  held="$held --held-out $nets/$n.tflite" # mktemp's names hold no blank
done
# shellcheck disable=SC2086
"$BUILD/bench" --compiler "${COMPILER:-unknown}" --flags "${FLAGS:-unknown}" \
  --before bench/before.md --out bench/RESULTS.md $held "$@"
# the kernels' speed targets: docs/KERNELS.md's latest measurement
# (docs/kernels_md.sh), not measured again here
bench/speed_rows.sh docs/KERNELS.md bench/RESULTS.md
