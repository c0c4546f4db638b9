# fuzz/lib.sh — what the model and pipeline fuzzers share (sourced by
# fuzz/run.sh and fuzz/run_pipeline.sh; not run on its own).
#
#   fuzz_seeds MKMODEL DIR [MAX_BYTES]
#       write memplan's own models into DIR: every fixture, the held-out
#       networks (up to MAX_BYTES, or 1 MiB, each), the bundled example, eight random
#       DAGs, two cut-down files; plus temporary
#       copies of ../shared/models (up to MAX_BYTES each) when present
#   fuzz_run NAME BINARY SECONDS LIBFUZZER_ARGS...
#       run BINARY for SECONDS with its log in $OUT/NAME.log; exits 1 on a
#       finding (a new crash-*, leak-*, timeout-* or oom-* in $OUT) or
#       when the fuzzer stops with an error

fuzz_seeds() {
  local mk=$1 dir=$2 max=${3:-0}
  for f in $("$mk" --list); do "$mk" fixture "$f" "$dir/fx_$f.tflite"; done
  # the held-out networks (whole models in converters' shapes) up to
  # MAX_BYTES, 1 MiB when no limit is given
  local netmax=$max
  [ "$netmax" -gt 0 ] || netmax=1048576
  for f in $("$mk" --list-nets); do
    "$mk" fixture "$f" "$dir/net_$f.tflite"
    [ "$(stat -c %s "$dir/net_$f.tflite")" -gt "$netmax" ] && rm -f "$dir/net_$f.tflite"
  done
  "$mk" kws "$dir/kws.tflite"
  # names that would become code or terminal control if taken literally
  "$mk" --hostile-names kws "$dir/hostile_kws.tflite"
  "$mk" --hostile-names fixture custom_ops "$dir/hostile_custom.tflite"
  for s in 1 2 3 4 5 6 7 8; do "$mk" random --seed "$s" --ops $((s * 6)) "$dir/random_$s.tflite"; done
  head -c 600 "$dir/fx_tiny.tflite" > "$dir/cut_tiny.tflite"
  head -c 8 "$dir/fx_tiny.tflite" > "$dir/cut_header.tflite"
  local shared=../shared/models n=0
  if [ -d "$shared" ]; then
    for m in "$shared"/*.tflite; do
      [ -f "$m" ] || continue
      [ "$max" -gt 0 ] && [ "$(stat -c %s "$m")" -gt "$max" ] && continue
      cp "$m" "$dir/shared_$(basename "$m")" && n=$((n+1))
    done
    echo "fuzz: also seeding with $n models read from $shared (temporary copies)"
  else
    echo "NOTICE: $shared not found: seeding with memplan's own models only"
  fi
  echo "fuzz: $(find "$dir" -type f | wc -l) seed models"
}

fuzz_artifacts() {
  find "$OUT" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | sort
}

fuzz_run() {
  local name=$1 bin=$2 secs=$3
  shift 3
  echo "fuzz: running $name for $secs s"
  local before start rc new
  before=$(fuzz_artifacts)
  start=$(date +%s)
  set +e
  "$bin" -max_total_time="$secs" -artifact_prefix="$OUT/" -print_final_stats=1 "$@" \
    2>&1 | tee "$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  set -e
  echo "fuzz: ran $(( $(date +%s) - start )) s"
  new=$(comm -13 <(echo "$before") <(fuzz_artifacts))
  if [ -n "$new" ]; then
    echo "fuzz: FINDING (exit $rc): see $OUT/$name.log and"; echo "$new" | sed 's/^/    /'
    exit 1
  elif [ "$rc" -ne 0 ]; then
    echo "fuzz: the fuzzer stopped with exit $rc and no finding (interrupted?)"
    exit 1
  fi
  echo "fuzz: no finding"
}
