#!/usr/bin/env bash
# suite_report_html.sh — the HTML plan report in a real browser.
#
# For a few corpus models ($MEMPLAN_MODELS, default ../shared/models; else
# the bundled example examples/kws/kws.tflite) and a 200-op random model
# (when mkmodel is built): `memplan plan MODEL --json --report R.html`,
# then headless Chromium (Debian's `chromium`, background networking off)
#   1. screenshots the report and checks the picture has painted slots
#      (pixels of the activation colour, Okabe-Ito blue #0072B2);
#   2. loads a copy with a check script appended, which compares the DOM
#      after layout with the residency JSON: one slot rectangle per
#      allocation (placed, non-alias tensors), each at its offset and
#      lifetime, one outline per alias, the high-water line at the arena's
#      reported size (data-bytes and y = y0 - bytes * plot_height / ymax,
#      attribute and rendered position), nothing loaded from outside the
#      page, the hover tooltip, sorting and row-to-slot highlighting
#      working, horizontal scrolling for wide models.  The verdict is written into the DOM and
#      read back with --dump-dom.
# Skips with a NOTICE when chromium (or $MEMPLAN_CHROMIUM) or every model is
# missing.
set -u
cd "$(dirname "$0")/.."
MODE=${MODE:-asan}
MEMPLAN=${MEMPLAN:-$PWD/build/$MODE/memplan}
BUILD=${MEMPLAN_BUILD:-$PWD/build/$MODE}
CHROME=${MEMPLAN_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROME" ] || [ ! -x "$CHROME" ]; then
  echo "NOTICE: chromium not found: skipping the browser test of the HTML report (setup.sh installs it)"
  exit 0
fi
if ! command -v python3 >/dev/null; then
  echo "NOTICE: python3 not found: skipping the browser test of the HTML report"
  exit 0
fi
[ -x "$MEMPLAN" ] || { echo "FAIL: $MEMPLAN is not built"; exit 1; }

MODELS=${MEMPLAN_MODELS:-../shared/models}
models=()
for m in mlperf_kws_ref_int8 tflm_keyword_scrambled_int8 tflm_person_detect_int8; do
  [ -f "$MODELS/$m.tflite" ] && models+=("$MODELS/$m.tflite")
done
if [ ${#models[@]} -eq 0 ]; then
  if [ -f examples/kws/kws.tflite ]; then
    echo "NOTICE: $MODELS not found: testing the report of examples/kws/kws.tflite only"
    models+=(examples/kws/kws.tflite)
  else
    echo "NOTICE: no corpus model and no examples/kws/kws.tflite: skipping the browser test of the HTML report"
    exit 0
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -x "$BUILD/mkmodel" ] && "$BUILD/mkmodel" random --seed 7 --ops 200 "$tmp/random200.tflite" >/dev/null; then
  models+=("$tmp/random200.tflite")
else
  echo "NOTICE: $BUILD/mkmodel not built: no 200-op model in the browser test"
fi

chrome() {
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --disable-default-apps \
    --disable-extensions --disable-dev-shm-usage --force-color-profile=srgb --hide-scrollbars \
    --user-data-dir="$tmp/profile" "$@" 2>"$tmp/chrome.err"
}

# The check run inside the page: EXPECT comes from the residency JSON.
cat >"$tmp/check.js" <<'EOF'
(function () {
  var E = EXPECT, errs = [], nrect = 0;
  function err(m) { if (errs.length < 25) errs.push(m); }
  function near(a, b, tol) { return Math.abs(a - b) <= tol; }
  E.arenas.forEach(function (a) {
    var plot = document.querySelector('svg.plot[data-arena="' + a.id + '"]');
    if (!plot) { err('arena ' + a.id + ': no plot'); return; }
    var y0 = +plot.dataset.y0, H = +plot.dataset.plotHeight, ymax = +plot.dataset.ymax;
    var col = +plot.dataset.colWidth;
    function y(b) { return y0 - b * H / ymax; }
    var rects = plot.querySelectorAll('rect.slot');
    nrect += rects.length;
    if (rects.length !== a.slots)
      err('arena ' + a.id + ': ' + rects.length + ' slot rects, expected ' + a.slots);
    var hw = plot.querySelectorAll('line.hwm');
    if (hw.length !== 1) { err('arena ' + a.id + ': ' + hw.length + ' high-water lines'); return; }
    var l = hw[0];
    if (+l.dataset.bytes !== a.used) err('arena ' + a.id + ': high-water ' + l.dataset.bytes + ' != used ' + a.used);
    if (+l.dataset.bytes !== a.size) err('arena ' + a.id + ': high-water ' + l.dataset.bytes + ' != size ' + a.size);
    if (!near(+l.getAttribute('y1'), y(a.size), 0.01))
      err('arena ' + a.id + ': high-water y ' + l.getAttribute('y1') + ' != ' + y(a.size));
    var pr = plot.getBoundingClientRect(), lr = l.getBoundingClientRect();
    var mid = (lr.top + lr.bottom) / 2 - pr.top;
    if (!near(mid, y(a.used), 0.75)) err('arena ' + a.id + ': high-water drawn at ' + mid + ', expected ' + y(a.used));
    if (a.lb !== null) {
      var lb = plot.querySelector('line.lb');
      if (!lb || +lb.dataset.bytes !== a.lb || !near(+lb.getAttribute('y1'), y(a.lb), 0.01))
        err('arena ' + a.id + ': lower-bound line');
    }
    rects.forEach(function (r) {
      var id = r.dataset.tensor, t = E.tensors[id];
      if (!t) { err('rect for tensor ' + id + ' not in the JSON'); return; }
      if (t.region !== a.id) err('tensor ' + id + ' drawn in arena ' + a.id);
      if (+r.dataset.offset !== t.offset || +r.dataset.size !== t.size) err('tensor ' + id + ': offset/size');
      var bb = r.getBBox();
      if (!near(bb.y + bb.height, y(t.offset), 0.02)) err('tensor ' + id + ': bottom ' + (bb.y + bb.height) + ' != ' + y(t.offset));
      if (t.start !== null && (!near(bb.x, t.start * col, 0.02) || !near(bb.width, (t.end - t.start + 1) * col, 0.02)))
        err('tensor ' + id + ': x extent');
    });
  });
  var al = document.querySelectorAll('rect.alias').length;
  if (al !== E.aliases) err(al + ' alias outlines, expected ' + E.aliases);
  var rows = document.querySelectorAll('#tensors tbody tr');
  if (rows.length !== E.placed) err(rows.length + ' table rows, expected ' + E.placed);
  /* self-contained: nothing fetched, no reference leaving the page */
  var res = performance.getEntriesByType('resource');
  if (res.length) err('fetched ' + res[0].name);
  document.querySelectorAll('[src],[href]').forEach(function (e) {
    var v = e.getAttribute('src') || e.getAttribute('href');
    if (v.charAt(0) !== '#') err('outside reference ' + v);
  });
  /* the table sorts by size both ways */
  var ths = document.querySelectorAll('#tensors thead th'), sc = -1;
  ths.forEach(function (th, i) { if (th.textContent.trim() === 'size') sc = i; });
  if (sc < 0) err('no size column');
  else {
    [1, -1].forEach(function (dir) {
      ths[sc].click();
      var prev = dir > 0 ? -1 : Infinity, ok = true;
      document.querySelectorAll('#tensors tbody tr').forEach(function (r) {
        var v = +r.cells[sc].dataset.v;
        if (dir > 0 ? v < prev : v > prev) ok = false;
        prev = v;
      });
      if (!ok) err('sorting by size, direction ' + dir);
    });
  }
  /* hovering a slot shows its tooltip */
  var first = document.querySelector('rect.slot'), tip = document.getElementById('tip');
  if (first) {
    first.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: 20, clientY: 20}));
    if (tip.style.display !== 'block' || tip.textContent.indexOf('#' + first.dataset.tensor + ' ') !== 0)
      err('hovering a slot shows no tooltip');
  }
  /* clicking a row highlights its slot */
  var slot = document.querySelector('rect.slot');
  if (slot) {
    document.querySelector('#tensors tbody tr[data-tensor="' + slot.dataset.tensor + '"]').click();
    if (!slot.classList.contains('sel')) err('row click does not highlight the slot');
  }
  /* wide models scroll sideways with usable columns */
  if (E.ops >= 150) {
    var s = document.querySelector('section.arena .scroll');
    if (!(s.scrollWidth > s.clientWidth)) err('a ' + E.ops + '-op timeline does not scroll');
    if (+document.querySelector('svg.plot').dataset.colWidth < 8) err('op columns under 8 px');
  }
  var out = document.createElement('pre');
  out.id = 'check-result';
  out.textContent = errs.length ? 'FAIL\n' + errs.join('\n') : 'OK ' + nrect + ' slot rects, ' + al + ' aliases';
  document.body.appendChild(out);
  document.body.setAttribute('data-check', errs.length ? 'fail' : 'ok');
})();
EOF

# Paint check: count pixels of the activation colour in a PNG (RGB/RGBA,
# 8 bits, not interlaced: what Chromium writes).
cat >"$tmp/pixels.py" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w, h, ctype = 8, b'', 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG format'
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
bpp = 4 if ctype == 6 else 3
raw, stride = zlib.decompress(idat), w * bpp
prev, i = bytearray(stride), 0
want, hits = (0x00, 0x72, 0xB2), 0  # stop once enough are found
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        if all(abs(line[x + k] - want[k]) <= 3 for k in range(3)):
            hits += 1
    if hits >= 200:
        break
print(w, h, hits)
EOF

# Inject EXPECT (from the JSON) and the check into a copy of the report.
cat >"$tmp/inject.py" <<'EOF'
import json, sys
report, js, check, out = sys.argv[1:5]
d = json.load(open(js))
tensors = {}
for t in d['tensors']:
    tensors[str(t['id'])] = {'offset': t['offset'], 'size': t['size'], 'region': t['region_id'],
                             'start': t['start_op'], 'end': t['end_op']}
arenas = []
for a in d['arenas']:
    slots = [t for t in d['tensors'] if t['region_id'] == a['region_id'] and t['alias_of'] is None]
    arenas.append({'id': a['region_id'], 'role': a['role'], 'used': a['used'], 'size': a['size'],
                   'lb': a.get('lower_bound'), 'slots': len(slots)})
exp = {'arenas': arenas, 'tensors': tensors, 'placed': len(d['tensors']), 'ops': d['model']['ops'],
       'aliases': sum(1 for t in d['tensors'] if t['alias_of'] is not None)}
html = open(report, encoding='utf-8').read()
i = html.rindex('</body>')
html = (html[:i] + '<script>var EXPECT=' + json.dumps(exp) + ';</script>\n<script>' +
        open(check).read() + '</script>\n' + html[i:])
open(out, 'w', encoding='utf-8').write(html)
print(sum(a['slots'] for a in arenas))
EOF

# The check's verdict, read back from the dumped DOM.
cat >"$tmp/verdict.py" <<'EOF'
import html, re, sys
m = re.search(r'<pre id="check-result">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else 'no verdict in the DOM')
EOF

fail=0
mkdir -p "$BUILD/test-logs"
for model in "${models[@]}"; do
  name=$(basename "$model" .tflite)
  if ! "$MEMPLAN" plan "$model" --json --report "$tmp/$name.html" >"$tmp/$name.json"; then
    echo "FAIL $name: memplan plan --json --report failed"; fail=1; continue
  fi
  expected=$(python3 "$tmp/inject.py" "$tmp/$name.html" "$tmp/$name.json" "$tmp/check.js" "$tmp/$name.check.html") ||
    { echo "FAIL $name: cannot read the residency JSON"; fail=1; continue; }

  png="$BUILD/test-logs/report_$name.png"
  rm -f "$png"
  chrome --window-size=1400,1600 --screenshot="$png" "file://$tmp/$name.html" >/dev/null
  if [ ! -s "$png" ]; then
    echo "FAIL $name: no screenshot"; sed 's/^/  /' "$tmp/chrome.err" | tail -5; fail=1; continue
  fi
  read -r w h blue < <(python3 "$tmp/pixels.py" "$png")
  if [ "${blue:-0}" -lt 200 ]; then
    echo "FAIL $name: screenshot ${w}x${h} shows no painted activation slots ($blue pixels)"; fail=1
  fi

  chrome --virtual-time-budget=5000 --dump-dom "file://$tmp/$name.check.html" >"$tmp/$name.dom"
  verdict=$(python3 "$tmp/verdict.py" "$tmp/$name.dom")
  if grep -q '<body[^>]*data-check="ok"' "$tmp/$name.dom"; then
    echo "ok   $name: $expected allocations; $verdict; screenshot ${w}x${h} ($png)"
  else
    echo "FAIL $name: $verdict"
    grep -iv 'dbus\|gpu\|unexpected operator' "$tmp/chrome.err" | tail -5 | sed 's/^/  /'
    fail=1
  fi
done
# `memplan convert --report` writes the same page for a config.
if [ -f examples/kws/config.yaml ]; then
  if "$MEMPLAN" convert --path examples/kws/config.yaml --module.path "$tmp/out" \
       --report "$tmp/convert.html" >/dev/null &&
     grep -q '<svg class="plot"' "$tmp/convert.html"; then
    echo "ok   convert --report: $(grep -c '<rect class="slot ' "$tmp/convert.html") slot rects"
  else
    echo "FAIL convert --path examples/kws/config.yaml --report wrote no report"; fail=1
  fi
fi
# ---- layout at three widths ------------------------------------------------
cat >"$tmp/layout.js" <<'EOF'
(function () {
  var errs = [], W = document.documentElement.clientWidth, ntext = 0, nsvg = 0;
  function err(m) { if (errs.length < 30) errs.push(m); }
  function box(el) { return el.getBoundingClientRect(); }
  function say(el) {
    var t = (el.textContent || '').trim().replace(/\s+/g, ' ');
    return el.tagName.toLowerCase() + ' "' + t.slice(0, 48) + '"';
  }
  function px(v) { return Math.round(v * 10) / 10; }
  if (document.documentElement.scrollWidth > W + 1)
    err('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + W + ' px window');
  document.querySelectorAll('section.card, header').forEach(function (c) {
    var r = box(c);
    if (r.left < -0.5 || r.right > W + 0.5) err(say(c) + ' spans ' + px(r.left) + '..' + px(r.right));
  });
  /* a scroll box stays inside its card */
  document.querySelectorAll('.wide, .scroll').forEach(function (w) {
    var r = box(w), c = box(w.closest('section.card'));
    if (r.left < c.left - 1 || r.right > c.right + 1)
      err('a scroll box spans ' + px(r.left) + '..' + px(r.right) + ' in a card ' + px(c.left) + '..' + px(c.right));
  });
  /* HTML text inside its box: the text's own extent (a Range), or the
   * element's box when it clips its text by design (an ellipsis) */
  var TEXT = 'h1, h2, h3, th, td, .stats > span, .bank .name, .bank .what, .legend > span, p.note, header dt, header dd';
  document.querySelectorAll(TEXT).forEach(function (el) {
    if (!el.textContent.trim()) return;
    ntext++;
    var cs = getComputedStyle(el), r;
    if (cs.overflowX === 'hidden' || cs.textOverflow === 'ellipsis') r = box(el);
    else { var rg = document.createRange(); rg.selectNodeContents(el); r = rg.getBoundingClientRect(); }
    var c = el.parentElement.closest('.wide, .scroll, section.card, header'), cr = box(c);
    var right = cr.right;
    if (c.matches('.wide, .scroll')) right = cr.left - c.scrollLeft + c.scrollWidth;
    if (r.left < cr.left - 1 || r.right > right + 1)
      err(say(el) + ' runs outside its box: ' + px(r.left) + '..' + px(r.right) + ' in ' + px(cr.left) + '..' + px(right));
    /* a figure squeezed into a sliver wraps into a column of words */
    if (el.matches('.bank .what') && r.width < 200) err(say(el) + ' squeezed to ' + px(r.width) + ' px');
  });
  /* SVG labels inside their SVG; axis and line labels never overlap */
  document.querySelectorAll('svg').forEach(function (svg) {
    var sr = box(svg);
    if (!sr.width) return;
    nsvg++;
    var labels = [];
    svg.querySelectorAll('text').forEach(function (t) {
      if (!t.textContent.trim()) return;
      var r = box(t);
      if (r.left < sr.left - 1 || r.right > sr.right + 1 || r.top < sr.top - 1 || r.bottom > sr.bottom + 1)
        err('svg text "' + t.textContent.trim().slice(0, 40) + '" at ' + px(r.left) + '..' + px(r.right) +
            ' outside its svg ' + px(sr.left) + '..' + px(sr.right));
      if (t.matches('.xlab, .ylab, .lines text')) labels.push({t: t, r: r});
    });
    labels.sort(function (a, b) { return a.r.left - b.r.left; });
    for (var i = 0; i < labels.length; i++)
      for (var j = i + 1; j < labels.length && labels[j].r.left < labels[i].r.right; j++) {
        var a = labels[i].r, b = labels[j].r;
        if (a.left < b.right - 0.1 && b.left < a.right - 0.1 && a.top < b.bottom - 0.1 && b.top < a.bottom - 0.1)
          err('labels "' + labels[i].t.textContent.trim() + '" and "' + labels[j].t.textContent.trim() + '" overlap');
      }
  });
  /* from 1400 px on, the tensor table shows every column: none clipped
   * behind a horizontal scroll (long names are shortened, reasons wrap) */
  var tt = document.querySelector('#tensors');
  if (tt && W >= 1400) {
    var wb = box(tt.closest('.wide'));
    Array.prototype.forEach.call(tt.tHead.rows[0].cells, function (th) {
      var r = box(th);
      if (r.right > wb.right + 1)
        err('tensor table column "' + th.textContent.trim() + '" ends at ' + px(r.right) +
            ', past its box ' + px(wb.right) + ': clipped behind a horizontal scroll');
    });
  }
  /* labels say what they mean */
  if (/proven optimum/.test(document.body.innerText)) err('a "proven optimum" label');
  document.querySelectorAll('section.arena').forEach(function (sec) {
    var names = Array.prototype.map.call(sec.querySelectorAll('.stats b'), function (b) { return b.textContent; });
    if (names.indexOf('room') < 0) err('arena ' + sec.dataset.arena + ': no room figure');
    if (names.indexOf('budget') >= 0) err('arena ' + sec.dataset.arena + ': a bare "budget" figure');
  });
  var out = document.createElement('pre');
  out.id = 'layout-result';
  out.textContent = errs.length ? 'FAIL\n' + errs.join('\n') : 'OK ' + ntext + ' text boxes, ' + nsvg + ' svgs at ' + W + ' px';
  document.body.appendChild(out);
  document.body.setAttribute('data-layout', errs.length ? 'fail' : 'ok');
})();
EOF
cat >"$tmp/layout_inject.py" <<'EOF'
import sys
html = open(sys.argv[1], encoding='utf-8').read()
i = html.rindex('</body>')
open(sys.argv[3], 'w', encoding='utf-8').write(html[:i] + '<script>' + open(sys.argv[2]).read() + '</script>\n' + html[i:])
EOF
cat >"$tmp/layout_verdict.py" <<'EOF'
import html, re, sys
m = re.search(r'<pre id="layout-result">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else 'no verdict in the DOM')
EOF
layout_models=()
if [ -x "$BUILD/mkmodel" ] && "$BUILD/mkmodel" random --seed 7 --ops 120 "$tmp/wide120.tflite" >/dev/null &&
   "$BUILD/mkmodel" random --seed 3 --ops 84 "$tmp/ops84.tflite" >/dev/null; then
  layout_models+=("$tmp/wide120.tflite" "$tmp/ops84.tflite")
else
  echo "NOTICE: $BUILD/mkmodel not built: no 120-op model in the layout test"
fi
layout_models+=(examples/kws/kws.tflite)
# a converter's 199-character tensor name, its tensors pinned by a rule
# (the longest reason) and spilled
if [ -x "$BUILD/mkmodel" ] && "$BUILD/mkmodel" fixture long_names "$tmp/long_names.tflite" >/dev/null; then
  layout_models+=("$tmp/long_names.tflite")
fi
PREFIX50=a_really_long_module_prefix_for_the_wakeword_net  # the longest prefix, 48
for model in "${layout_models[@]}"; do
  name=$(basename "$model" .tflite)
  extra=()
  [ "$name" = long_names ] && extra=(--memory.tensors '[{"type":"scratch","id":["1"],"attributes":{"memory":"sram"}}]'
                                    --memory.constraints '[{"name":"dtcm","max_size":1024}]')
  "$MEMPLAN" plan "$model" --quiet --prefix "$PREFIX50" "${extra[@]}" --report "$tmp/$name.layout.html" >/dev/null 2>&1 \
    || { echo "FAIL $name: plan --report for the layout test"; fail=1; continue; }
  python3 "$tmp/layout_inject.py" "$tmp/$name.layout.html" "$tmp/layout.js" "$tmp/$name.layout.check.html"
  for w in 800 1400 2560; do
    png="$BUILD/test-logs/report_${name}_$w.png"
    rm -f "$png"
    chrome --window-size=$w,1400 --screenshot="$png" "file://$tmp/$name.layout.html" >/dev/null
    [ -s "$png" ] || { echo "FAIL $name at $w px: no screenshot"; fail=1; }
    chrome --window-size=$w,1400 --virtual-time-budget=3000 --dump-dom \
      "file://$tmp/$name.layout.check.html" >"$tmp/$name.$w.dom"
    verdict=$(python3 "$tmp/layout_verdict.py" "$tmp/$name.$w.dom")
    if grep -q '<body[^>]*data-layout="ok"' "$tmp/$name.$w.dom"; then
      echo "ok   layout $name at $w px: $verdict ($png)"
    else
      echo "FAIL layout $name at $w px: $verdict" | head -n 14; fail=1
    fi
  done
done

# An unwritable report path is a usage/I-O error naming the path.
"$MEMPLAN" plan "${models[0]}" --report "$tmp/missing/r.html" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "$tmp/missing/r.html" "$tmp/err" || [ -e "$tmp/missing" ]; then
  echo "FAIL an unwritable --report path: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
fi
exit $fail
