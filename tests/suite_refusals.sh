#!/usr/bin/env bash
# suite_refusals.sh — the suites' side of the expected refusals
# (tests/expected_refusals.txt), on lists, logs and conformance results
# made up here, so that every way a refusal can go wrong is seen to fail:
#   - tests/support/refusals.sh's refused_as_listed (suite_module_tables,
#     suite_residency_schema): a listed refusal with its message passes; a
#     model that plans or converts now, another message, a crash's exit
#     status, a refusal at plan of a model listed at convert, and an
#     unlisted refusal fail;
#   - tests/conformance/conform_gen.py (suite_conformance): a case refused
#     with a listed reason counts as refused; a reason not listed for its
#     row, a stale entry (its row ran whole and no case gave it), an entry
#     naming no row, and a refusal that came with a sanitizer report fail.
# Needs python3 only; never skips.
set -u
cd "$(dirname "$0")/.."
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# ---- refused_as_listed ------------------------------------------------------
cat > "$out/list.txt" <<'EOF'
# made up
model early plan operator 1 (VAR_HANDLE) is not supported: no static size
model late convert operator 3 (SHAPE) is not supported: memplan has no kernel for SHAPE
case SHAPE int8 SHAPE: memplan has no kernel for SHAPE
EOF
MEMPLAN_EXPECTED_REFUSALS=$out/list.txt
. tests/support/refusals.sh
log() { printf '%s\n' "$@" > "$out/log.txt"; }
expect() { # expect PASS|FAIL WHAT NAME STAGE STATUS
  local want=$1 what=$2; shift 2
  if refused_as_listed "$@" "$out/log.txt" > "$out/r.txt"; then got=PASS; else got=FAIL; fi
  local said; said=$(sed 's/^\(ok\|FAIL\) *//' "$out/r.txt")
  if [ "$got" = "$want" ]; then ok "$what ($want): $said"; else bad "$what (want $want, got $got): $said"; fi
}
[ "$(refusal_of late)" = "convert operator 3 (SHAPE) is not supported: memplan has no kernel for SHAPE" ] &&
  [ -z "$(refusal_of SHAPE)" ] && ok "refusal_of reads the model lines only" || bad "refusal_of: '$(refusal_of late)'"
log "m.tflite: error: operator 1 (VAR_HANDLE) is not supported: no static size; reads nothing" \
    "m.tflite: error: operator 4 (CUSTOM) is not supported: later"
expect PASS "listed, refused so" early plan 1
expect PASS "listed at plan, refused so by convert" early convert 1
expect FAIL "listed, but succeeds" early plan 0
expect FAIL "listed, but crashed" early plan 134
expect FAIL "not listed" other convert 1
log "m.tflite: error: operator 3 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 2"
expect PASS "listed at convert, refused so" late convert 1
expect FAIL "listed at convert, refused by plan" late plan 1
log "m.tflite: error: operator 2 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 2"
expect FAIL "another message" late convert 1

# ---- conform_gen.py -----------------------------------------------------------
# a corpus of made-up cases and a memplan that only prints what it is told
corpus=$out/corpus
mkdir -p "$corpus"
python3 - "$corpus" <<'PY'
import json, sys
cases = [{"op": op, "dtype": dt, "folder": f, "inputs": [], "outputs": []} for op, dt, f in [
    ("SHAPE", "int8", "shape_int8/000"), ("SHAPE", "int8", "shape_int8/001"),
    ("CAST", "int8_to_int16", "cast_int8_to_int16/000"), ("TANH", "int8", "tanh_int8/000")]]
json.dump({"cases": cases}, open(sys.argv[1] + "/manifest.json", "w"))
PY
cat > "$out/memplan" <<'EOF'
#!/bin/sh
# a memplan convert that refuses by the model's folder name
case "$2" in
  *shape_int8/000*) echo "m: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0" >&2 ;;
  *shape_int8/001*) echo "m: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0" >&2
                    echo "==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x1" >&2 ;;
  *cast*) echo "m: error: operator 0 (CAST) is not supported: int8 to int16 is odd; reads 0" >&2 ;;
  *tanh*) echo "m: error: operator 0 (TANH) is not supported: input scale out of range; reads 0" >&2 ;;
esac
exit 1
EOF
chmod +x "$out/memplan"
cat > "$out/cases.txt" <<'EOF'
case SHAPE int8 SHAPE: memplan has no kernel for SHAPE
case TANH int8 TANH: input scale out of range
case CAST int8_to_int16 CAST: a reason no case gives
case NOPE int8 NOPE: nothing
EOF
python3 tests/conformance/conform_gen.py generate "$out/run" --corpus "$corpus" --memplan "$out/memplan" \
  --jobs 2 --target generic > "$out/gen.log" 2>&1 || bad "generate: $(tail -n 3 "$out/gen.log")"
python3 tests/conformance/conform_gen.py summarise "$out/run" --refusals "$out/cases.txt" > "$out/sum.log" 2>&1
st=$?
check() { # check WHAT PATTERN: the summary has a line matching PATTERN
  if grep -Eq "$2" "$out/sum.log"; then ok "$1"; else bad "$1: no line matching '$2'"; sed 's/^/    /' "$out/sum.log"; fi
}
[ $st = 1 ] && ok "summarise fails on the made-up corpus" || bad "summarise exited $st"
check "a refusal with a listed reason counts as refused" '^SHAPE int8 +2 +0 .* 1 +0$'
check "a refusal with a sanitizer report fails" 'FAIL shape_int8/001: memplan convert exited 1 with a sanitizer report: ==7==ERROR: AddressSanitizer'
check "a reason not listed for its row fails" 'FAIL cast_int8_to_int16/000: convert refused it for a reason .* does not list for CAST int8_to_int16: CAST: int8 to int16 is odd'
check "an entry naming no row fails" 'FAIL .*cases.txt:4: no case of the corpus is NOPE int8'
check "an entry of a row that ran whole, unmatched, fails as stale" 'FAIL .*cases.txt:3: stale: no case of CAST int8_to_int16'
check "a listed reason it gave counts with its cases" '^ +1 +TANH int8: TANH: input scale out of range'
grep -q 'cases.txt:2: stale' "$out/sum.log" && bad "the TANH entry matched a case but is called stale" ||
  ok "an entry that matched a case is not stale"
exit $fail
