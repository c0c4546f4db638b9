#!/usr/bin/env bash
# check_layers.sh [ROOT] — the tree reads as the pipeline, and nothing runs
# back up it.  Exit 0 when every rule holds; otherwise print one line per
# broken rule (file:line: what and why) and exit 1.
#
# The library's stages, in pipeline order (src/<stage>/):
#   util  read  planners  config  lower  graph  plan  emit
# A file of a stage includes headers of its own stage or of stages before
# it, the public header memplan.h and the kernels' headers (runtime/
# kernels, which include nothing of the library).  Every include of a
# library header names its stage ("lower/lower.h"), so the rule can be read
# off the line.  Within a stage, the files' include graph has no circle
# (X.h belongs to X.c).  The CLI (cli/) includes only memplan.h and its own
# cli.h.  The library includes none of the test generators
# (tests/support/gen).
#
# Within a stage, the files below the others say so by their includes:
#   - lower/families.h (the operator families' entry points) is included
#     only by the dispatcher (lower/dispatch.c), the kernel table
#     (lower/params.c) and the family files it names ("src/lower/X.c");
#     the families' shared helpers (lower/common.c, common.h) include no
#     lowering header but common.h and lower.h;
#   - graph/storage.c, below every graph pass, includes no graph header but
#     its own.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
stages=(util read planners config lower graph plan emit)
declare -A rank=()
for i in "${!stages[@]}"; do rank[${stages[$i]}]=$i; done
gen_headers=" $(cd tests/support/gen 2>/dev/null && ls -- *.h 2>/dev/null | tr '\n' ' ') "
bad=0
say() { echo "$*"; bad=$((bad+1)); }

# includes FILE: "LINE NAME" for each quoted include; every file's
# includes are read once, by one grep, into inc_of
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"'
declare -A inc_of=()
while IFS= read -r l; do
  f=${l%%:*}; l=${l#*:}; n=${l%%:*}; l=${l#*\"}
  inc_of[$f]+="$n ${l%%\"*}"$'\n'
done < <(grep -n -H -- "$include_re" src/*/*.[ch] runtime/kernels/*.h runtime/kernels/*/*.[ch] cli/*.[ch] 2>/dev/null)
includes() {
  if [ -n "${inc_of[$1]+x}" ]; then printf '%s' "${inc_of[$1]}"
  elif [ -f "$1" ]; then grep -n -- "$include_re" "$1" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1 \2/'; fi
}

for f in src/*/*.c src/*/*.h; do
  [ -f "$f" ] || continue
  st=${f#src/}; st=${st%%/*}
  if [ -z "${rank[$st]:-}" ]; then say "$f: folder src/$st is not a stage (${stages[*]})"; continue; fi
  while read -r line inc; do
    case $inc in
      memplan.h) continue ;;
      */*) ist=${inc%%/*}
           if [ -n "${rank[$ist]:-}" ]; then
             [ "${rank[$ist]}" -le "${rank[$st]}" ] ||
               say "$f:$line: includes \"$inc\": stage $st must not depend on $ist, which comes after it"
             [ -f "src/$inc" ] || say "$f:$line: includes \"$inc\", which does not exist"
             continue
           fi
           case $inc in cm/mpk_*.h) continue ;; esac
           say "$f:$line: includes \"$inc\": not a stage header (src/<stage>/...)" ;;
      mpk*.h) [ -f "runtime/kernels/$inc" ] || say "$f:$line: includes \"$inc\", not a kernel header of runtime/kernels" ;;
      *) case $gen_headers in
           *" $inc "*) say "$f:$line: includes the test generator \"$inc\": the library must not link tests/support/gen" ;;
           *) say "$f:$line: includes \"$inc\" without its stage folder" ;;
         esac ;;
    esac
  done < <(includes "$f")
done

# no circle among the files of one stage: X.c -> Y.c when X.c includes
# "stage/Y.h" (or a header Y.h includes) and src/stage/Y.c exists
declare -A edges=()
for f in src/*/*.c; do
  st=${f#src/}; st=${st%%/*}; me=${f%.c}
  seen=" "; todo=("$f")
  while [ ${#todo[@]} -gt 0 ]; do
    g=${todo[0]}; todo=("${todo[@]:1}")
    while read -r _ inc; do
      case $inc in "$st"/*.h) ;; *) continue ;; esac
      case $seen in *" $inc "*) continue ;; esac
      seen="$seen$inc "
      todo+=("src/$inc")
      y="src/${inc%.h}"
      [ -f "$y.c" ] && [ "$y" != "$me" ] && edges[$me]="${edges[$me]:-} $y"
    done < <(includes "$g")
  done
done
declare -A state=()
visit() { # DFS; a grey node met again is a circle
  local n=$1 m
  state[$n]=grey; path+=("$n")
  for m in ${edges[$n]:-}; do
    if [ "${state[$m]:-}" = grey ]; then
      local cyc="" p on=0
      for p in "${path[@]}"; do [ "$p" = "$m" ] && on=1; [ $on = 1 ] && cyc="$cyc$p.c -> "; done
      say "circle: $cyc$m.c"
    elif [ -z "${state[$m]:-}" ]; then visit "$m"; fi
  done
  state[$n]=black; unset 'path[${#path[@]}-1]'
}
for n in "${!edges[@]}"; do path=(); [ -z "${state[$n]:-}" ] && visit "$n"; done

# the families' header: the dispatcher, the kernel table and the families
fam=src/lower/families.h
if [ -f "$fam" ]; then
  allowed=" src/lower/dispatch.c src/lower/params.c $(grep -o 'src/lower/[a-z_0-9]*\.c' "$fam" | sort -u | tr '\n' ' ') "
  for f in src/*/*.c src/*/*.h; do
    [ -f "$f" ] || continue
    while read -r line inc; do
      [ "$inc" = lower/families.h ] || continue
      case $allowed in *" $f "*) ;; *) say "$f:$line: includes \"lower/families.h\": only the dispatcher, the kernel table and the family files it names may (a family is called through the dispatcher's table)" ;; esac
    done < <(includes "$f")
  done
fi
# below_others FILE OWN-HEADERS...: FILE includes no header of its stage
# but the ones named
below_others() {
  local f=$1 st line inc; shift
  [ -f "$f" ] || return 0
  st=${f#src/}; st=${st%%/*}
  while read -r line inc; do
    case $inc in "$st"/*) ;; *) continue ;; esac
    case " $* " in *" $inc "*) continue ;; esac
    say "$f:$line: includes \"$inc\": $f is below the other files of src/$st and includes only $*"
  done < <(includes "$f")
}
below_others src/lower/common.c lower/common.h lower/lower.h
below_others src/lower/common.h lower/lower.h
below_others src/graph/storage.c graph/storage.h

for f in runtime/kernels/*.h runtime/kernels/*/*.[ch]; do
  [ -f "$f" ] || continue
  while read -r line inc; do
    case $inc in mpk*.h) ;; *) say "$f:$line: a kernel includes \"$inc\": kernels include only kernel headers" ;; esac
  done < <(includes "$f")
done
for f in cli/*.c cli/*.h; do
  [ -f "$f" ] || continue
  while read -r line inc; do
    case $inc in memplan.h|cli.h) ;; *) say "$f:$line: the CLI includes \"$inc\": it uses only the public header memplan.h" ;; esac
  done < <(includes "$f")
done
[ $bad = 0 ] || { echo "check_layers: $bad rule(s) broken"; exit 1; }
echo "check_layers: ${#stages[@]} stages, every include runs down the pipeline"
