#!/usr/bin/env bash
# suite_cli_robust.sh — the CLI against hostile surroundings, not hostile
# bytes (suite_mutation.sh does those):
#   - a FIFO (or any non-regular file) given as model, config or CSV is
#     refused at once with a message, never waited on;
#   - every failing command prints an error and leaves no file behind;
#   - outputs do not depend on the working directory: the same convert run
#     from two folders writes byte-identical modules and reports.
# Every command runs under `timeout`, so a hang fails the suite instead of
# stalling it.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
EXAMPLE=$ROOT/examples/kws
[ -x "$MEMPLAN" ] || { echo "no memplan binary at $MEMPLAN"; exit 1; }
fail=0; n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name, condition text; call after a command, "$@" = test
  n=$((n+1))
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=$((fail+1)); fi
}

# run DIR EXPECTED_RC CMD... : runs in DIR with a 20 s limit, keeps stderr
run() {
  local dir=$1 want=$2; shift 2
  (cd "$dir" && timeout 20 "$MEMPLAN" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
  rc=$?
  [ "$rc" = "$want" ]
}

# ---- FIFOs -----------------------------------------------------------------
mkdir -p "$tmp/fifo"
mkfifo "$tmp/fifo/m.tflite" "$tmp/fifo/c.yaml" "$tmp/fifo/p.csv"
printf 'model: {path: m.tflite}\n' > "$tmp/fifo/ok.yaml"
check "inspect of a FIFO model refuses it at once" \
  run "$tmp/fifo" 2 inspect m.tflite
check "  ... naming it" grep -q "m.tflite: error: not a regular file" "$tmp/stderr"
check "plan of a FIFO model refuses it at once" run "$tmp/fifo" 2 plan m.tflite
check "  ... naming it" grep -q "m.tflite: error: not a regular file" "$tmp/stderr"
check "convert with a FIFO config refuses it at once" run "$tmp/fifo" 2 convert --path c.yaml
check "  ... naming it" grep -q "c.yaml: error: not a regular file" "$tmp/stderr"
check "convert of a config naming a FIFO model refuses it" run "$tmp/fifo" 2 convert --path ok.yaml
check "  ... and writes nothing" test ! -e "$tmp/fifo/out"
check "solve of a FIFO CSV refuses it at once" run "$tmp/fifo" 2 solve p.csv
check "  ... naming it" grep -q "p.csv: error: not a regular file" "$tmp/stderr"
check "a directory as model is refused" run "$tmp" 2 inspect fifo
check "  ... naming it" grep -q "not a regular file" "$tmp/stderr"

# ---- the working directory -------------------------------------------------
mkdir -p "$tmp/a" "$tmp/b/deeper"
cp "$EXAMPLE/kws.tflite" "$EXAMPLE/config.yaml" "$tmp/a/"
run "$tmp/a" 0 convert --path config.yaml --report report.html
check "convert from the config's folder succeeds" test "$rc" = 0
run "$tmp/b/deeper" 0 convert --path ../../a/config.yaml --module.path "$tmp/b/out" \
  --report "$tmp/b/report.html"
check "convert from another folder succeeds" test "$rc" = 0
check "both write the same module, byte for byte" diff -r "$tmp/a/out" "$tmp/b/out"
check "both write the same HTML report" cmp "$tmp/a/report.html" "$tmp/b/report.html"
check "the residency report records the model's file name" \
  grep -q '"path": "kws.tflite"' "$tmp/a/out/kws_residency.json"
check "the HTML title records the model's file name" \
  grep -q '<title>memplan report: kws.tflite</title>' "$tmp/a/report.html"
run "$tmp/b/deeper" 0 plan ../../a/kws.tflite --json
cp "$tmp/stdout" "$tmp/plan1.json"
run "$tmp/a" 0 plan kws.tflite --json
check "plan --json is the same from two folders" cmp "$tmp/plan1.json" "$tmp/stdout"

echo "$((n-fail)) of $n checks passed"
[ $fail -eq 0 ]
