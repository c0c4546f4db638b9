#!/usr/bin/env bash
# suite_install.sh — `make install PREFIX=... DESTDIR=...` into a temporary
# folder installs a working tool: the binary (its --version is the
# header's), memplan.1 (renders without warnings and documents every command
# option and configuration key the help texts list), bash completion that
# completes commands, options and config keys, the zsh completion, and a
# public header, libmemplan.a and memplan.pc that a program builds and links
# against to plan the example.  `make uninstall` removes it all again.
set -u
cd "$(dirname "$0")/.."
MODE=${MODE:-asan}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
PREFIX=/opt/memplan
P=$tmp$PREFIX
make -s MODE="$MODE" install PREFIX="$PREFIX" DESTDIR="$tmp" > "$tmp/install.log" 2>&1 \
  || { echo "FAIL make install"; cat "$tmp/install.log"; exit 1; }
for f in bin/memplan lib/libmemplan.a lib/pkgconfig/memplan.pc include/memplan.h \
         share/man/man1/memplan.1 share/bash-completion/completions/memplan \
         share/zsh/site-functions/_memplan; do
  if [ -f "$P/$f" ]; then echo "ok   $f"; else echo "FAIL $f not installed"; fail=1; fi
done
[ $fail = 0 ] || exit 1
version=$(sed -n 's/^#define MP_VERSION "\(.*\)"/\1/p' include/memplan.h)
got=$("$P/bin/memplan" --version)
[ "$got" = "memplan $version" ] && echo "ok   $got" || { echo "FAIL --version says '$got'"; fail=1; }
"$P/bin/memplan" --help | grep -q -- '--version' && echo "ok   --help lists --version" \
  || { echo "FAIL --help does not list --version"; fail=1; }
n=$("$P/bin/memplan" --help | wc -l)
[ "$n" -le 40 ] && echo "ok   --help is an overview ($n lines)" || { echo "FAIL --help has $n lines"; fail=1; }

# the man page: renders cleanly, carries the version, documents everything
MAN=$P/share/man/man1/memplan.1
warn=$(groff -man -ww -z "$MAN" 2>&1)
[ -z "$warn" ] && echo "ok   memplan.1 renders without warnings" || { echo "FAIL groff: $warn"; fail=1; }
grep -q "^\.TH MEMPLAN 1 .*\"memplan $version\"" "$MAN" && echo "ok   memplan.1 is for $version" \
  || { echo "FAIL memplan.1 does not name version $version"; fail=1; }
text=$(groff -man -Tascii -rHY=0 -rLL=200n "$MAN" 2>/dev/null | col -b)
for cmd in convert plan inspect solve; do
  section=$(printf '%s\n' "$text" | awk -v c="$cmd" '/^   [a-z]+$/ { f = ($1 == c) } f')
  [ -n "$section" ] || { echo "FAIL memplan.1 has no section for $cmd"; fail=1; continue; }
  opts=$("$P/bin/memplan" "$cmd" --help | grep -o -- '^  \(-[a-z], \)\?--[a-z][a-z-]*' | grep -o -- '--[a-z-]*' | sort -u)
  [ "$cmd" = convert ] && opts=$(printf '%s\n' $opts | grep -v -- '^--\(model\|module\|platform\|memory\)$\|^--help$')
  missing=""
  for o in $opts; do
    case $o in --help|--model|--module|--platform|--memory|--memory.*|--model.*|--module.*|--platform.*) continue ;; esac
    printf '%s\n' "$section" | grep -q -- "$o" || missing="$missing $o"
  done
  [ -z "$missing" ] && echo "ok   memplan.1 documents every option of $cmd" \
    || { echo "FAIL memplan.1's $cmd section lacks$missing"; fail=1; }
done
keys=$("$P/bin/memplan" convert --help | sed -n 's/^  --\(\(model\|module\|platform\|memory\)\.[a-z-]*\)  .*/\1/p' | tr '-' '_' | sort -u)
missing=""
for k in $keys verbose; do printf '%s\n' "$text" | grep -q -- "$k" || missing="$missing $k"; done
[ -z "$missing" ] && echo "ok   memplan.1 documents every configuration key" \
  || { echo "FAIL memplan.1 lacks the keys$missing"; fail=1; }
# every planner's options (from its schema, as --help lists them) in PLANNERS
planners_text=$(printf '%s\n' "$text" | awk '/^PLANNERS/ { f = 1; next } /^[A-Z]/ { f = 0 } f')
missing=""; nopt=0
while read -r pl opt; do
  nopt=$((nopt+1))
  printf '%s\n' "$planners_text" | awk -v p="$pl" '$1 == p { f = 1; print; next } /^       [a-z]/ { f = 0 } f' |
    grep -qw -- "$opt" || missing="$missing $pl.$opt"
done < <("$P/bin/memplan" convert --help | awk '/^      [a-z_]+ options:$/ { pl = $1; next }
  /^        [a-z_]+ +(integer|boolean)/ && pl { print pl, $1; next } /^  --/ { pl = "" }')
[ "$nopt" -gt 0 ] && [ -z "$missing" ] && echo "ok   memplan.1 names all $nopt planner options" \
  || { echo "FAIL memplan.1's PLANNERS lacks$missing ($nopt options)"; fail=1; }

# bash completion
complete_words() { # complete_words WORD...: what completing the last word offers
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _memplan; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$P/share/bash-completion/completions/memplan" "$@"
}
check_completion() { # check_completion "WANT..." WORD...
  local want=$1; shift
  local got; got=$(complete_words "$@" | sort | tr '\n' ' ')
  for w in $want; do
    case " $got" in *" $w "*) ;; *) echo "FAIL completing '$*' offers '$got', not $w"; fail=1; return ;; esac
  done
  echo "ok   completing '$*' offers $want"
}
check_completion "plan" "$P/bin/memplan" pl
check_completion "--planner --planner-options --platform" "$P/bin/memplan" plan --pla
check_completion "hill_climb" "$P/bin/memplan" plan --planner hi
check_completion "--memory.planner --memory.planner-options" "$P/bin/memplan" convert --memory.pl
check_completion "--alignment" "$P/bin/memplan" inspect --al
check_completion "solve" "$P/bin/memplan" help so
check_completion "examples/kws/config.yaml" "$P/bin/memplan" convert --path examples/kws/
check_completion "examples/kws/config.yaml examples/kws/kws.tflite" "$P/bin/memplan" plan examples/kws/
# the completions offer exactly the built-in platforms the tool names
builtin=$("$P/bin/memplan" plan x.tflite --platform no_such_platform 2>&1 |
  sed -n 's/.*(built-in platforms: \([^;]*\);.*/\1/p' | sed 's/,\| and / /g' | tr -s ' ' '\n' | sort | tr '\n' ' ')
offered=$(complete_words "$P/bin/memplan" plan --platform "" | sort | tr '\n' ' ')
zsh_list=$(sed -n 's/^_memplan_platforms() { _values platform \(.*\) }$/\1/p' "$P/share/zsh/site-functions/_memplan" |
  tr ' ' '\n' | sort | tr '\n' ' ')
if [ -n "$builtin" ] && [ "$builtin" = "$offered" ] && [ "$builtin" = "$zsh_list" ]; then
  echo "ok   bash and zsh complete the built-in platforms: $builtin"
else
  echo "FAIL built-in platforms '$builtin', bash offers '$offered', zsh '$zsh_list'"; fail=1
fi
# zsh completion
if command -v zsh >/dev/null; then
  zsh -n "$P/share/zsh/site-functions/_memplan" && echo "ok   _memplan parses in zsh" || { echo "FAIL _memplan"; fail=1; }
else
  head -n 1 "$P/share/zsh/site-functions/_memplan" | grep -qx '#compdef memplan' \
    && echo "ok   _memplan is a zsh completion function" || { echo "FAIL _memplan lacks #compdef"; fail=1; }
  echo "NOTICE: zsh is not installed; _memplan is not parsed"
fi

# a program built against the installed header, library and memplan.pc
cat > "$tmp/app.c" <<'C'
#include <memplan.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  (void)argc;
  mp_model *m = NULL;
  mp_graph *g = NULL;
  mp_plan *p = NULL;
  mp_platform pf;
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  if (!mp_platform_builtin("apollo510_evb", &pf)) return 1;
  if (mp_model_load(argv[1], NULL, &m) != MP_OK) return 2;
  if (mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) return 3;
  if (mp_kernels_prepare(g, false, NULL) != MP_OK) return 4;
  if (mp_plan_build(g, &pf, &a, NULL, &p) != MP_OK || mp_plan_verify(p, NULL) != MP_OK) return 5;
  printf("%s %llu\n", p->planner, (unsigned long long)p->arenas[0].total_size);
  mp_plan_free(&p);
  mp_graph_free(&g);
  mp_model_free(&m);
  return 0;
}
C
SAN=""; [ "$MODE" = asan ] && SAN="-fsanitize=address,undefined"
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --define-variable=prefix="$P" --static --cflags --libs memplan) \
  || { echo "FAIL pkg-config memplan"; fail=1; }
if cc -std=c99 -Wall -Wextra -Werror $SAN "$tmp/app.c" $flags -o "$tmp/app" 2> "$tmp/cc.log"; then
  got=$("$tmp/app" examples/kws/kws.tflite)
  [ "$got" = "greedy 16000" ] && echo "ok   a program linked with pkg-config plans the example: $got" \
    || { echo "FAIL the linked program printed '$got'"; fail=1; }
else
  echo "FAIL a program does not build against the installed library:"; sed 's/^/    /' "$tmp/cc.log"; fail=1
fi

make -s MODE="$MODE" uninstall PREFIX="$PREFIX" DESTDIR="$tmp" > /dev/null 2>&1
left=$(find "$tmp$PREFIX" -type f | sed "s|^$tmp||")
[ -z "$left" ] && echo "ok   make uninstall removes every file" || { echo "FAIL left after uninstall: $left"; fail=1; }
exit $fail
