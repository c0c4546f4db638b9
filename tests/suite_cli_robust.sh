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

not_grep() { ! grep -q "$@"; }

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

# ---- malformed operators and values that look like options ------------------
MUTATE=$(dirname "$MEMPLAN")/mutate
mkdir -p "$tmp/bad"
if [ -x "$MUTATE" ]; then
  # seed 1 points the example's SOFTMAX at a tensor of another size
  "$MUTATE" "$EXAMPLE/kws.tflite" 1 "$tmp/bad/softmax.tflite" >/dev/null
  run "$tmp/bad" 2 plan softmax.tflite
  check "plan of a model with a malformed operator fails" test "$rc" = 2
  check "  ... with an error naming the operator" \
    grep -q "error: operator 12 (SOFTMAX): input and output differ in size" "$tmp/stderr"
  printf 'model: {path: softmax.tflite}\nverbose: 0\n' > "$tmp/bad/c.yaml"
  run "$tmp/bad" 2 convert --path c.yaml --allow-unsupported
  check "convert --allow-unsupported of it fails" test "$rc" = 2
  check "  ... with the error, not only a warning" grep -q "error: operator 12 (SOFTMAX)" "$tmp/stderr"
  check "  ... and writes nothing" test ! -e "$tmp/bad/out"
else
  echo "NOTICE: no $MUTATE: the malformed-operator checks are skipped"
fi
cp "$EXAMPLE/kws.tflite" "$tmp/bad/"
run "$tmp/bad" 2 plan kws.tflite --platform.memories.dtcm -1
check "plan reads a negative size as the option's value" \
  grep -q "'platform.memories.dtcm' must be a non-negative size in bytes, not -1" "$tmp/stderr"
check "  ... not as a second model" not_grep "more than one model" "$tmp/stderr"
run "$tmp/bad" 0 plan --memory.no-allocate-arenas kws.tflite
check "plan takes the model after a boolean option" test "$rc" = 0

# ---- converts in parallel into sibling folders of a missing parent ---------
# (build systems run them with -j): each creates the parent if missing, and
# one finding it made by another meanwhile is no error
mkdir -p "$tmp/par"
cp "$EXAMPLE/kws.tflite" "$tmp/par/"
par_ok=1
for round in 1 2 3 4 5 6 7 8; do
  rm -rf "$tmp/par/gen"
  pids=()
  for k in 1 2 3 4; do
    (cd "$tmp/par" && timeout 60 "$MEMPLAN" convert --model.path kws.tflite \
      --module.path "gen/deep/m$k" --module.prefix "m$k" >/dev/null 2>"$tmp/par/err$k") &
    pids+=($!)
  done
  for k in 0 1 2 3; do
    wait "${pids[$k]}" || { par_ok=0; sed 's/^/      /' "$tmp/par/err$((k+1))"; }
  done
  [ "$par_ok" = 1 ] || break
done
check "four converts at once into sibling folders of a missing parent all succeed" \
  test "$par_ok" = 1
check "  ... each writing its module" test -f "$tmp/par/gen/deep/m4/include/m4_model.h"

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

# ---- a failed convert writes nothing ---------------------------------------
# every name, type and size, every file's modification time and checksum
snapshot() { (cd "$1" && find . -printf '%p %y %s\n' | sort;
  find . -type f -printf '%p %T@\n' | sort; find . -type f -print0 | sort -z | xargs -0 md5sum); }
mkdir -p "$tmp/f"
cp "$EXAMPLE/kws.tflite" "$EXAMPLE/config.yaml" "$tmp/f/"
run "$tmp/f" 2 convert --path config.yaml --report nodir/r.html
check "--report into a missing folder fails" test "$rc" = 2
check "  ... naming the report" grep -q "nodir/r.html: error: cannot write" "$tmp/stderr"
check "  ... and writes no module" test ! -e "$tmp/f/out"
check "  ... and leaves no staging folder (the folder's lock file may stay)" \
  test -z "$(ls -A "$tmp/f" | grep -v '^config.yaml$\|^kws.tflite$\|^\.out\.memplan-lock$')"
run "$tmp/f" 2 convert --path config.yaml --module.path new/deep/out --report nodir/r.html
check "  ... nor the module folder's missing parents" test ! -e "$tmp/f/new"
run "$tmp/f" 0 convert --path config.yaml --report r.html
check "convert writes module, report and manifest" test -f "$tmp/f/out/.memplan-manifest" -a -f "$tmp/f/r.html"
echo "my notes" > "$tmp/f/out/notes.txt"
echo "keep me" > "$tmp/f/victim.txt"
rm "$tmp/f/out/kernels/mpk_conv.c"; mkdir "$tmp/f/out/kernels/mpk_conv.c"
before=$(snapshot "$tmp/f")
run "$tmp/f" 2 convert --path config.yaml --report r.html --memory.planner hill_climb
check "a kernel file that cannot be created fails the convert" test "$rc" = 2
check "  ... naming it" grep -q "out/kernels/mpk_conv.c: error: a folder memplan did not write is where the module needs a file" "$tmp/stderr"
check "  ... and changes no file, the report included" test "$before" = "$(snapshot "$tmp/f")"
rmdir "$tmp/f/out/kernels/mpk_conv.c"
run "$tmp/f" 0 convert --path config.yaml
check "a convert after the obstacle is gone succeeds" test "$rc" = 0
run "$tmp/f" 0 convert --path config.yaml --module.prefix kw2
check "converting again with a new prefix succeeds" test "$rc" = 0
check "  ... and removes the old prefix's files" \
  test ! -e "$tmp/f/out/include/kws_model.h" -a ! -e "$tmp/f/out/src/kws_model.c" -a ! -e "$tmp/f/out/kws_residency.json"
check "  ... writes the new ones" test -f "$tmp/f/out/include/kw2_model.h" -a -f "$tmp/f/out/src/kw2_arenas.c"
check "  ... and keeps a file memplan did not write" grep -q "my notes" "$tmp/f/out/notes.txt"
check "  ... and the report of the earlier convert" test -f "$tmp/f/r.html"
run "$tmp/f" 0 convert --path config.yaml --module.prefix kw2 --memory.no-allocate-arenas
check "switching to application-bound arenas removes the arena source" test ! -e "$tmp/f/out/src/kw2_arenas.c"
printf '../victim.txt\n/etc/hostname\nnotes.txt/../../victim.txt\n' >> "$tmp/f/out/.memplan-manifest"
run "$tmp/f" 0 convert --path config.yaml --module.prefix kw3
check "a manifest naming files outside the folder deletes none of them" \
  grep -q "keep me" "$tmp/f/victim.txt"
check "  ... and still removes the old prefix's files" test ! -e "$tmp/f/out/include/kw2_model.h"
check "  ... and the folders that left empty" test ! -e "$tmp/f/out/data"
: > "$tmp/f/out-file"
run "$tmp/f" 2 convert --path config.yaml --module.path out-file
check "a module.path that is a file fails" test "$rc" = 2
check "  ... naming it" grep -q "out-file: error: module.path is not a folder" "$tmp/stderr"
check "  ... leaving no staging folder" test -z "$(ls -A "$tmp/f" | grep memplan | grep -v 'memplan-lock$')"

# ---- the emitted runtime API -----------------------------------------------
WARN="-Wall -Wextra -Werror"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
mkdir -p "$tmp/api"
for mode in own bound; do
  extra=(); [ $mode = bound ] && extra=(--memory.no-allocate-arenas)
  run "$tmp/api" 0 convert --path "$EXAMPLE/config.yaml" --module.path "$tmp/api/$mode" \
    --verbose 0 "${extra[@]}"
  check "convert of the example ($mode arenas)" test "$rc" = 0
  make -s -f "$tmp/api/$mode/module.mk" CC=cc CFLAGS="$WARN -O1 -g $SAN" \
    KWS_MODULE_BUILD="$tmp/api/$mode/build" >"$tmp/api/$mode.make" 2>&1
  check "  ... builds warning-free" test $? = 0
  cc -std=c99 $WARN -O1 -g $SAN -I"$tmp/api/$mode/include" tests/emit/api_app.c \
    "$tmp/api/$mode/build/libkws_nn.a" -lm -o "$tmp/api/$mode/app" 2>"$tmp/api/$mode.cc"
  check "  ... and the API test program with it" test $? = 0
  timeout 60 "$tmp/api/$mode/app" "$tmp/api/$mode/data" >"$tmp/api/$mode.out" 2>&1
  rc=$?
  sed 's/^/      /' "$tmp/api/$mode.out"
  check "  ... whose every check passes" test "$rc" = 0
done

echo "$((n-fail)) of $n checks passed"
[ $fail -eq 0 ]
