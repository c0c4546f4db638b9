#!/usr/bin/env bash
# suite_setup.sh — setup.sh installs everything the tests use: every tool a
# suite looks for (`command -v TOOL`, `for tool in ...`) comes from a package
# setup.sh lists, or from an Essential one, so a fresh machine after
# `./setup.sh` skips nothing.  Needs dpkg (Debian); prints a NOTICE and
# passes without it.
set -u
cd "$(dirname "$0")/.."
command -v dpkg >/dev/null || { echo "NOTICE: no dpkg: setup.sh's packages are not checked"; exit 0; }
pkgs=$(sed -n '/^PKGS="/,/"$/p' setup.sh | tr -d '"' | sed 's/^PKGS=//' | tr -s ' \n' '\n' | sed '/^$/d')
[ -n "$pkgs" ] || { echo "FAIL no PKGS list in setup.sh"; exit 1; }
suites=$(ls tests/*.sh | grep -v 'tests/suite_setup\.sh$')
# shellcheck disable=SC2086
tools=$( { grep -ho 'command -v [a-z0-9_.+-]*' $suites | awk '{print $3}'
           grep -ho 'for tool in [^;]*' $suites | sed 's/for tool in //' | tr ' ' '\n'; } |
         sed '/^$/d' | sort -u)
[ -n "$tools" ] || { echo "FAIL no tools found in the suites"; exit 1; }
fail=0
for t in $tools; do
  case $t in chromium-browser) continue ;; esac   # chromium's other name, looked for second
  path=$(command -v "$t") || { echo "FAIL $t: a suite looks for it and it is not installed (add its package to setup.sh)"; fail=1; continue; }
  # the system's copy (not a shim on PATH), under either merged-/usr name
  pkg=""
  for f in "/usr/bin/$t" "/bin/$t" "$path" "$(readlink -f "$path")"; do
    [ -e "$f" ] || continue
    pkg=$(dpkg -S "$f" 2>/dev/null | head -1) && [ -n "$pkg" ] && break
  done
  pkg=${pkg%%:*}
  if [ -z "$pkg" ]; then echo "FAIL $t: no package owns $path"; fail=1; continue; fi
  if grep -qxF "$pkg" <<<"$pkgs"; then echo "ok   $t: $pkg, in setup.sh"; continue; fi
  ess=$(dpkg-query -W -f='${Essential}' "$pkg" 2>/dev/null)
  prio=$(dpkg-query -W -f='${Priority}' "$pkg" 2>/dev/null)
  if [ "$ess" = yes ] || [ "$prio" = required ]; then echo "ok   $t: $pkg, essential"; continue; fi
  # a dependency of a listed package (python3 -> python3.11, gcc -> build-essential)
  dep=""
  for p in $pkgs; do
    if apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
         --no-replaces --no-enhances "$p" 2>/dev/null | grep -qx "  *Depends: $pkg\|$pkg"; then dep=$p; break; fi
  done
  if [ -n "$dep" ]; then echo "ok   $t: $pkg, through $dep"; else echo "FAIL $t: its package $pkg is not in setup.sh's PKGS"; fail=1; fi
done
exit $fail
