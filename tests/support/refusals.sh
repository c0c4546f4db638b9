# refusals.sh — the expected refusals (tests/expected_refusals.txt, or
# $MEMPLAN_EXPECTED_REFUSALS) for the suites; source it from the repository
# root.  The C tests read the same file (testutil.h's tu_refusal_check).
#
#   refusal_of NAME
#       prints "STAGE MESSAGE" for corpus model NAME (STAGE plan or
#       convert), nothing when the model is not listed.
#   refused_as_listed NAME STAGE STATUS LOG
#       after `memplan STAGE` of model NAME exited with STATUS and wrote its
#       output to LOG: succeeds (printing one "ok" line) when NAME is listed
#       at that stage or before, the command exited 1 and the first error in
#       LOG begins with the listed message; otherwise prints a FAIL line
#       saying what happened and fails.  A model listed at convert must
#       plan: `memplan plan` of it is not a refusal.
#   case_refused_as_listed FOLDER STATUS LOG
#       after `memplan convert` of conformance case FOLDER (shape_int8/001)
#       exited with STATUS and wrote its output to LOG: succeeds silently
#       when it converted (STATUS 0) and is not listed; succeeds printing an
#       "ok" line when it is listed, convert exited 1, printed no sanitizer
#       report and its first "operator N (OP) is not supported: why" line
#       gives "OP: why" beginning with the listed reason; otherwise (a
#       listed case that converts, an unlisted refusal, another reason, a
#       crash) prints a FAIL line saying what happened and fails.

EXPECTED_REFUSALS=${MEMPLAN_EXPECTED_REFUSALS:-tests/expected_refusals.txt}

refusal_of() {
  local kind name stage message
  while read -r kind name stage message; do
    [ "$kind" = model ] && [ "$name" = "$1" ] && { echo "$stage $message"; return 0; }
  done < "$EXPECTED_REFUSALS"
  return 0
}

refused_as_listed() {
  local name=$1 stage=$2 status=$3 log=$4 entry listed message got
  entry=$(refusal_of "$name")
  listed=${entry%% *} message=${entry#* }
  if [ -z "$entry" ] || { [ "$stage" = plan ] && [ "$listed" = convert ]; }; then
    echo "FAIL $name: memplan $stage exited $status, and no refusal is listed for it at $stage"
    return 1
  fi
  if [ "$status" = 0 ]; then
    echo "FAIL $name: listed as refused at $listed (\"$message\"), but memplan $stage succeeds: delete its line from $EXPECTED_REFUSALS"
    return 1
  fi
  got=$(grep -m1 ': error: ' "$log" | sed 's/^.*: error: //')
  if [ "$status" != 1 ] || [ "${got#"$message"}" = "$got" ]; then
    echo "FAIL $name: listed as refused at $listed with \"$message\", but memplan $stage exited $status saying \"$got\""
    return 1
  fi
  echo "ok   $name: refused as expected at $listed: $message"
}

# case_refusal_of FOLDER: prints "OP DTYPE REASON" for conformance case
# FOLDER, nothing when it is not listed.
case_refusal_of() {
  local kind op dtype folder reason
  while read -r kind op dtype folder reason; do
    [ "$kind" = case ] && [ "$folder" = "$1" ] && { echo "$op $dtype $reason"; return 0; }
  done < "$EXPECTED_REFUSALS"
  return 0
}

case_refused_as_listed() {
  local folder=$1 status=$2 log=$3 entry reason got
  entry=$(case_refusal_of "$folder")
  reason=${entry#* }; reason=${reason#* }
  if [ "$status" = 0 ]; then
    [ -z "$entry" ] && return 0
    echo "FAIL $folder: listed as refused (\"$reason\"), but memplan convert converts it: delete its line from $EXPECTED_REFUSALS"
    return 1
  fi
  got=$(sed -n 's/^.*error: operator [0-9]* (\([A-Za-z0-9_]*\)) is not supported: \(.*\)$/\1: \2/p' "$log" | head -n 1)
  got=${got%%; reads *}
  if grep -Eq 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error: |SUMMARY: [A-Za-z]+Sanitizer' "$log"; then
    echo "FAIL $folder: memplan convert exited $status with a sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$log")"
    return 1
  fi
  if [ -z "$entry" ]; then
    echo "FAIL $folder: memplan convert exited $status, and no refusal is listed for it: ${got:-$(grep -m1 'error' "$log")}"
    return 1
  fi
  if [ "$status" != 1 ] || [ -z "$got" ] || [ "${got#"$reason"}" = "$got" ]; then
    echo "FAIL $folder: listed as refused with \"$reason\", but memplan convert exited $status saying \"${got:-$(grep -m1 'error' "$log")}\""
    return 1
  fi
  echo "ok   $folder: refused as expected: $reason"
}
