#!/usr/bin/env bash
# Regenerate the pictures of the HTML plan report with headless Chromium:
#   docs/report.png       the README's screenshot: the bundled example
#                         (examples/kws) at 1400 px;
#   docs/report_800.png, docs/report_1400.png, docs/report_2560.png
#                         a 120-operator random model (mkmodel random
#                         --seed 7 --ops 120) with a 49-character symbol
#                         prefix, at each of the widths the report is
#                         tested at (tests/suite_report_html.sh).
#   docs/report_png.sh [path/to/memplan]    (default build/release/memplan)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${1:-build/release/memplan}
MKMODEL=$(dirname "$MEMPLAN")/mkmodel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shot() { # shot WIDTH HEIGHT PAGE OUT
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --force-color-profile=srgb \
    --user-data-dir="$tmp/profile" --window-size="$1,$2" \
    --screenshot="$tmp/shot.png" "file://$3" 2>/dev/null >/dev/null || true
  [ -s "$tmp/shot.png" ] || { echo "report_png: no screenshot of $3 at $1 px" >&2; exit 1; }
  mv "$tmp/shot.png" "$4"
  echo "wrote $4"
}
"$MEMPLAN" convert --path examples/kws/config.yaml --module.path "$tmp/out" \
  --report "$tmp/report.html" >/dev/null
shot 1400 1400 "$tmp/report.html" docs/report.png
"$MKMODEL" random --seed 7 --ops 120 "$tmp/wide120.tflite"
"$MEMPLAN" plan "$tmp/wide120.tflite" --quiet --prefix a_really_long_module_prefix_for_the_wake_word_net \
  --report "$tmp/wide.html" >/dev/null 2>&1
for w in 800 1400 2560; do shot "$w" 1400 "$tmp/wide.html" "docs/report_$w.png"; done
