#!/usr/bin/env bash
# suite_mutation.sh — seeded structured mutations of memplan's own models
# through `inspect`, `plan` and `convert`, under the build's sanitizers.
#
# Every test fixture (mkmodel --list) and the bundled example is mutated
# MUTATION_SEEDS times (default 8) by build/<mode>/mutate, which changes one
# value the reader will accept as a flatbuffer (a dimension, a type, a
# buffer index or length, a scale or zero point, an operator's tensor index
# or option, an opcode, a subgraph input).  Each mutant runs through the
# three commands with a time limit, and each run must:
#   - exit 0, 1 or 2 (3 is an internal error, above 128 a crash or a
#     sanitizer report, 124 a hang);
#   - print an error when it exits non-zero (never a silent failure);
#   - for a failed convert, leave neither the module folder nor the report.
# The same seeds give the same mutants, so a failure is replayed with the
# printed mutate command.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}
MEMPLAN=${MEMPLAN:-$BUILD/memplan}
MUTATE=$BUILD/mutate
MKMODEL=$BUILD/mkmodel
SEEDS=${MUTATION_SEEDS:-8}
for b in "$MEMPLAN" "$MUTATE" "$MKMODEL"; do [ -x "$b" ] || { echo "missing $b"; exit 1; }; done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail=0; runs=0; mutants=0
bases=("$ROOT/examples/kws/kws.tflite")
for f in $("$MKMODEL" --list); do
  if "$MKMODEL" fixture "$f" "$tmp/base_$f.tflite" >/dev/null; then bases+=("$tmp/base_$f.tflite")
  else echo "FAIL mkmodel could not write the fixture $f"; fail=$((fail+1)); fi
done
# a campaign over too few models or mutants proves little: every fixture
# and at least 90 % of the model x seed pairs must give a mutant
[ ${#bases[@]} -ge 10 ] || { echo "FAIL only ${#bases[@]} base models"; fail=$((fail+1)); }
declare -A tally
bad() { # message; the mutant's replay command is in $replay
  fail=$((fail+1))
  if [ $fail -le 20 ]; then
    echo "FAIL $1"; echo "     mutant: $replay ($what)"
    sed 's/^/     | /' "$tmp/err" | head -8
  fi
}

# one run: NAME ALLOWED_CODES CMD...; leaves $rc
run() {
  local name=$1 allowed=$2; shift 2
  (cd "$tmp/w" && timeout 30 "$@" >"$tmp/out" 2>"$tmp/err")
  rc=$?
  runs=$((runs+1))
  tally["$name $rc"]=$(( ${tally["$name $rc"]:-0} + 1 ))
  case " $allowed " in
    *" $rc "*) ;;
    *) if [ $rc = 124 ]; then bad "$name hung (killed after 30 s)"
       elif [ $rc -ge 128 ]; then bad "$name crashed or tripped a sanitizer (exit $rc)"
       else bad "$name exited $rc"; fi
       return ;;
  esac
  if [ $rc != 0 ] && ! grep -q "error" "$tmp/err"; then bad "$name exited $rc without an error message"; fi
}

for base in "${bases[@]}"; do
  for s in $(seq 1 "$SEEDS"); do
    rm -rf "$tmp/w"; mkdir -p "$tmp/w"
    replay="mutate $(basename "$base") $s m.tflite"
    what=$("$MUTATE" "$base" "$s" "$tmp/w/m.tflite" 2>/dev/null) || continue
    mutants=$((mutants+1))
    run inspect "0 1 2" "$MEMPLAN" inspect m.tflite --json
    run plan "0 1 2" "$MEMPLAN" plan m.tflite
    allow=(); [ $((s % 2)) = 1 ] && allow=(--allow-unsupported)
    printf 'model: {path: m.tflite}\nmodule: {path: out, prefix: mx}\nmemory: {dump_residency_json: true}\nverbose: 0\n' \
      > "$tmp/w/config.yaml"
    run convert "0 1 2" "$MEMPLAN" convert --path config.yaml --report r.html "${allow[@]}"
    if [ $rc = 0 ]; then
      [ -f "$tmp/w/out/include/mx_model.h" ] && [ -f "$tmp/w/r.html" ] ||
        bad "convert succeeded without writing the module and the report"
    elif [ $rc -le 2 ]; then
      left=$(cd "$tmp/w" && ls -A | grep -v '^m.tflite$\|^config.yaml$')
      [ -z "$left" ] || bad "convert failed (exit $rc) yet left: $(echo $left)"
    fi
  done
done

echo "mutants: $mutants of ${#bases[@]} models x $SEEDS seeds; runs: $runs"
want=$(( ${#bases[@]} * SEEDS * 9 / 10 ))
[ "$mutants" -ge "$want" ] || { echo "FAIL $mutants mutants, fewer than the $want asked (90 % of the pairs)"; fail=$((fail+1)); }
for cmd in inspect plan convert; do
  line="  $cmd:"
  for code in 0 1 2; do line="$line exit $code x${tally["$cmd $code"]:-0},"; done
  echo "${line%,}"
done
if [ $fail -gt 0 ]; then echo "$fail failures"; exit 1; fi
echo "every run exited 0, 1 or 2, with a message on failure and no files from a failed convert"
