#!/usr/bin/env bash
# Regenerate docs/report.png, the README's screenshot of the HTML plan
# report of the bundled example (examples/kws), with headless Chromium.
#   docs/report_png.sh [path/to/memplan]    (default build/release/memplan)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMPLAN=${1:-build/release/memplan}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MEMPLAN" convert --path examples/kws/config.yaml --module.path "$tmp/out" \
  --report "$tmp/report.html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --force-color-profile=srgb \
  --hide-scrollbars --user-data-dir="$tmp/profile" --window-size=1400,1400 \
  --screenshot="$tmp/report.png" "file://$tmp/report.html" 2>/dev/null >/dev/null || true
[ -s "$tmp/report.png" ] || { echo "report_png: no screenshot" >&2; exit 1; }
cp "$tmp/report.png" docs/report.png
echo "wrote docs/report.png"
