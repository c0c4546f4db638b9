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
