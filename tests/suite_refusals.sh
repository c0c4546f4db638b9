#!/usr/bin/env bash
# suite_refusals.sh — the suites' side of the expected refusals
# (tests/expected_refusals.txt), on lists, logs and conformance results
# made up here, so that every way a refusal can go wrong is seen to fail:
#   - tests/support/refusals.sh's refused_as_listed (suite_module_tables,
#     suite_residency_schema): a listed refusal with its message passes; a
#     model that plans or converts now, another message, a crash's exit
#     status, a refusal at plan of a model listed at convert, and an
#     unlisted refusal fail;
#   - case_refused_as_listed (suite_module_tables' conformance cases): a
#     listed case refused with its reason passes, a case that converts and
#     is not listed passes; a listed case that converts, an unlisted
#     refusal, another reason, a crash and a sanitizer report fail;
#   - tests/conformance/conform_gen.py (suite_conformance): a case refused
#     as listed counts as refused; an unlisted refusal, a listed case
#     refused for another reason or with a sanitizer report, a listed case
#     that converts (stale, in a filtered run too), an entry naming no
#     case or the wrong row, a case listed twice, and a filter that
#     selects no case fail; with variants (suite_rewrite's conformance
#     runs), each variant's cases are converted with its options and each
#     variant is judged on its own, its failures named after it;
#   - tests/conformance/operator_table.py (suite_readme): the table counts
#     the cases per row and type and gives the listed refusals with their
#     reasons; --check fails on a table that differs; a list with an entry
#     of the wrong row is refused.
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

# ---- case_refused_as_listed ---------------------------------------------------
cat >> "$out/list.txt" <<'EOF2'
case SHAPE int8 shape_int8/001 SHAPE: memplan has no kernel for SHAPE
EOF2
cexpect() { # cexpect PASS|FAIL WHAT FOLDER STATUS
  local want=$1 what=$2; shift 2
  if case_refused_as_listed "$@" "$out/log.txt" > "$out/r.txt"; then got=PASS; else got=FAIL; fi
  local said; said=$(sed 's/^\(ok\|FAIL\) *//' "$out/r.txt")
  if [ "$got" = "$want" ]; then ok "case: $what ($want): ${said:-(silent)}"; else bad "case: $what (want $want, got $got): $said"; fi
}
[ "$(case_refusal_of shape_int8/001)" = "SHAPE int8 SHAPE: memplan has no kernel for SHAPE" ] &&
  [ -z "$(case_refusal_of shape_int8/000)" ] && ok "case_refusal_of reads the case lines" ||
  bad "case_refusal_of: '$(case_refusal_of shape_int8/001)'"
log "m.tflite: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0 't0' int8[4]" \
    "m.tflite: error: 1 of 1 operators are not supported (SHAPE)"
cexpect PASS "listed, refused so" shape_int8/001 1
cexpect FAIL "refused, not listed" shape_int8/000 1
cexpect FAIL "listed, crashed" shape_int8/001 134
cexpect FAIL "listed, but converts" shape_int8/001 0
cexpect PASS "not listed, converts" shape_int8/000 0
log "m.tflite: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0" \
    "==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x1"
cexpect FAIL "listed, refused with a sanitizer report" shape_int8/001 1
log "m.tflite: error: operator 0 (SHAPE) is not supported: int64 output; reads 0"
cexpect FAIL "listed, refused for another reason" shape_int8/001 1
log "m.tflite: error: cannot read the model"
cexpect FAIL "listed, failed otherwise" shape_int8/001 1

# ---- conform_gen.py -----------------------------------------------------------
# a corpus of made-up cases and a memplan that only prints what it is told
corpus=$out/corpus
mkdir -p "$corpus"
python3 - "$corpus" <<'PY'
import json, sys
cases = [{"op": op, "dtype": dt, "folder": f, "inputs": [], "outputs": []} for op, dt, f in [
    ("SHAPE", "int8", "shape_int8/000"), ("SHAPE", "int8", "shape_int8/001"),
    ("CAST", "int8_to_int16", "cast_int8_to_int16/000"), ("TANH", "int8", "tanh_int8/000"),
    ("TANH", "int8", "tanh_int8/001")]]
json.dump({"cases": cases}, open(sys.argv[1] + "/manifest.json", "w"))
PY
cat > "$out/memplan" <<'EOF2'
#!/bin/sh
# a memplan convert that refuses by the model's folder name
echo "$*" >> "${0%/*}/calls.txt"
case "$2" in
  *shape_int8/000*) echo "m: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0" >&2 ;;
  *shape_int8/001*) echo "m: error: operator 0 (SHAPE) is not supported: memplan has no kernel for SHAPE; reads 0" >&2
                    echo "==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x1" >&2 ;;
  *cast*) echo "m: error: operator 0 (CAST) is not supported: int8 to int16 is odd; reads 0" >&2 ;;
  *tanh_int8/000*) echo "m: error: operator 0 (TANH) is not supported: input scale out of range; reads 0" >&2 ;;
  *tanh_int8/001*) echo "m: error: operator 0 (TANH) is not supported: another reason; reads 0" >&2 ;;
esac
exit 1
EOF2
chmod +x "$out/memplan"
cat > "$out/cases.txt" <<'EOF2'
case SHAPE int8 shape_int8/000 SHAPE: memplan has no kernel for SHAPE
case SHAPE int8 shape_int8/001 SHAPE: memplan has no kernel for SHAPE
case TANH int8 tanh_int8/000 TANH: input scale out of range
case TANH int8 tanh_int8/001 TANH: input scale out of range
case NOPE int8 nope_int8/000 NOPE: nothing
case TANH int16 shape_int8/000 TANH: wrong row
EOF2
python3 tests/conformance/conform_gen.py generate "$out/run" --corpus "$corpus" --memplan "$out/memplan" \
  --jobs 2 --target generic > "$out/gen.log" 2>&1 || bad "generate: $(tail -n 3 "$out/gen.log")"
if python3 tests/conformance/conform_gen.py generate "$out/none" --corpus "$corpus" --memplan "$out/memplan" \
     --filter '^nosuch/' > "$out/none.log" 2>&1; then bad "a filter that selects no case passes"
else ok "a filter that selects no case fails: $(tail -n 1 "$out/none.log")"; fi
# the list names shape_int8/000 twice: a malformed list
python3 tests/conformance/conform_gen.py summarise "$out/run" --refusals "$out/cases.txt" > "$out/sum.log" 2>&1
st=$?
[ $st = 1 ] && grep -q 'cases.txt:6: case shape_int8/000 is listed already, on line 1' "$out/sum.log" &&
  ok "a case listed twice ends summarise" || { bad "a case listed twice: exit $st"; cat "$out/sum.log"; }
sed -i '$d' "$out/cases.txt"
sed -i 's|^case TANH int8 tanh_int8/000 |case TANH int16 tanh_int8/000 |' "$out/cases.txt"
python3 tests/conformance/conform_gen.py summarise "$out/run" --refusals "$out/cases.txt" > "$out/sum.log" 2>&1
st=$?
check() { # check WHAT PATTERN: the summary has a line matching PATTERN
  if grep -Eq "$2" "$out/sum.log"; then ok "$1"; else bad "$1: no line matching '$2'"; sed 's/^/    /' "$out/sum.log"; fi
}
[ $st = 1 ] && ok "summarise fails on the made-up corpus" || bad "summarise exited $st"
check "a refusal as listed counts as refused" '^SHAPE int8 +2 +0 .* 1 +0$'
check "a listed refusal with a sanitizer report fails" 'FAIL shape_int8/001: memplan convert exited 1 with a sanitizer report: ==7==ERROR: AddressSanitizer'
check "a refusal not listed fails" 'FAIL cast_int8_to_int16/000: convert refused it, and .*cases.txt does not list it: CAST: int8 to int16 is odd'
check "a listed case refused for another reason fails" 'FAIL tanh_int8/001: .*cases.txt:4 lists it as refused with "TANH: input scale out of range", but convert says "TANH: another reason"'
check "an entry naming no case fails" 'FAIL .*cases.txt:5: the corpus has no case nope_int8/000'
check "an entry with the wrong row fails" 'FAIL .*cases.txt:3: tanh_int8/000 is a case of TANH int8, not of TANH int16'
check "the listed cases with their verdicts" '^  refused +shape_int8/000 +SHAPE: memplan has no kernel for SHAPE$'

# variants (suite_rewrite's way): each one's cases converted with its
# options, each judged on its own against the list, its failures named
cat > "$out/var.txt" <<'EOF2'
case SHAPE int8 shape_int8/000 SHAPE: memplan has no kernel for SHAPE
case TANH int8 tanh_int8/000 TANH: input scale out of range
EOF2
python3 tests/conformance/conform_gen.py generate "$out/var" --corpus "$corpus" --memplan "$out/memplan" \
  --jobs 2 --target generic --variants $'plain ^shape_int8/000$\nfolded ^tanh_int8/ --memory.in_place=true' \
  > "$out/var.log" 2>&1 || bad "generate with variants: $(tail -n 3 "$out/var.log")"
python3 tests/conformance/conform_gen.py summarise "$out/var" --refusals "$out/var.txt" > "$out/sum.log" 2>&1
st=$?
[ $st = 1 ] && ok "summarise fails when one variant fails" || bad "summarise with variants exited $st"
check "a variant without failures passes" '^conformance plain: 0 of 0 converted cases .* 1 refused as expected$'
check "a variant's failure names it" '^  FAIL folded: tanh_int8/001: convert refused it, and .*var.txt does not list it: TANH: another reason$'
check "a failed variant says so last" '^conformance folded: FAIL: 1 failures$'
if grep -q 'tanh_int8/000/model.tflite .* --memory.in_place=true$' "$out/calls.txt" &&
   ! grep -q 'shape_int8/000/model.tflite .*in_place' "$out/calls.txt"; then
  ok "each variant's cases are converted with its options, last"
else bad "the variants' convert options:"; sed 's/^/    /' "$out/calls.txt"; fi
if python3 tests/conformance/conform_gen.py generate "$out/var2" --corpus "$corpus" --memplan "$out/memplan" \
     --variants 'plain .' --filter '^shape' > "$out/var2.log" 2>&1; then bad "--variants with --filter passes"
else ok "--variants with --filter fails: $(tail -n 1 "$out/var2.log")"; fi

# the README's operator table from the made-up corpus and list
grep -E ' int8 (shape|tanh)_int8/' "$out/cases.txt" > "$out/table.txt"
python3 tests/conformance/operator_table.py --corpus "$corpus" --refusals "$out/table.txt" > "$out/table.md" 2>&1
if grep -qxF '| SHAPE | 2, 2 refused | — | — |  | int8 2: memplan has no kernel for SHAPE |' "$out/table.md" &&
   grep -qxF '| CAST | — | — | — | int8 to int16: 1 |  |' "$out/table.md" &&
   grep -qxF '| TANH | 2, 1 refused | — | — |  | int8 1: input scale out of range |' "$out/table.md" &&
   grep -q '^5 cases in 3 rows (operator, type): `convert` accepts 2, each matching TFLM, and refuses 3' "$out/table.md"
then ok "operator_table.py counts the cases and gives the listed refusals with their reasons"
else bad "operator_table.py:"; sed 's/^/    /' "$out/table.md"; fi
cp README.md "$out/README.md"
python3 tests/conformance/operator_table.py --corpus "$corpus" --refusals "$out/table.txt" --check "$out/README.md" \
  > "$out/check.txt" 2>&1
if [ $? = 1 ] && grep -q '^FAIL .*README.md: the operator table differs' "$out/check.txt" &&
   grep -qxF '+| TANH | 2, 1 refused | — | — |  | int8 1: input scale out of range |' "$out/check.txt"
then ok "operator_table.py --check fails on a README whose table differs, showing the difference"
else bad "operator_table.py --check:"; sed 's/^/    /' "$out/check.txt"; fi
python3 tests/conformance/operator_table.py --corpus "$corpus" --refusals "$out/cases.txt" > "$out/bad.txt" 2>&1 &&
  bad "operator_table.py takes a list with an entry of the wrong row" ||
  ok "operator_table.py refuses a list with an entry of the wrong row: $(tail -n 1 "$out/bad.txt")"

# refusal_failures on verdicts made up here: a listed case that converts
# is stale, in a filtered run too; a listed case the run left out is not
python3 - "$out" <<'PY' && ok "refusal_failures: a listed case that converts is stale; one left out is not" || fail=1
import sys
sys.path.insert(0, "tests/conformance")
import conform_gen
corpus = {"a_int8/000": ["A", "int8"], "a_int8/001": ["A", "int8"], "a_int8/002": ["A", "int8"]}
entries = [{"op": "A", "dtype": "int8", "folder": f, "reason": "A: no", "line": n}
           for n, f in ((1, "a_int8/000"), (2, "a_int8/001"), (3, "a_int8/002"))]
cases = [{"folder": "a_int8/000", "verdict": "ran", "detail": ""},
         {"folder": "a_int8/001", "verdict": "unsupported", "detail": "A: no, not yet"}]
failures, refused = conform_gen.refusal_failures("list", entries, corpus, cases)
want = ['list:1: stale: a_int8/000 is listed as refused ("A: no") but converts now: delete the line']
if failures != want or list(refused) != ["a_int8/001"]:
    print("FAIL refusal_failures: %r, %r" % (failures, refused))
    sys.exit(1)
PY
exit $fail
