# bash completion for memplan                                  -*- sh -*-
#
# Completes the commands, each command's options, planner and platform
# names, and, for convert and plan, every configuration key: the keys come
# from `memplan convert --help` itself (once per shell), so they never go
# stale.  Installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/memplan.

_memplan_config_keys() {
  if [ -z "${_memplan_keys:-}" ]; then
    _memplan_keys=$("${1:-memplan}" convert --help 2>/dev/null |
      sed -n 's/^  \(--[a-z][a-z._-]*\)  .*/\1/p' | sort -u | tr '\n' ' ')
  fi
  printf '%s' "$_memplan_keys"
}

_memplan() {
  local cur prev cmd words
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_CWORD:+${COMP_WORDS[COMP_CWORD-1]}}
  cmd=${COMP_WORDS[1]:-}
  local planners="greedy greedy_by_size hill_climb exact"
  local platforms="apollo510_evb apollo4p_evb apollo330p_evb apollo3p_evb stm32h743 imxrt1060_evk esp32s3_devkitc"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "convert plan inspect solve profile help --help --version" -- "$cur"))
    return
  fi
  case $prev in
    --planner|--memory.planner) COMPREPLY=($(compgen -W "$planners" -- "$cur")); return ;;
    --platform|--platform.name) COMPREPLY=($(compgen -W "$platforms" -- "$cur")); return ;;
    --verbose) COMPREPLY=($(compgen -W "0 1 2 3" -- "$cur")); return ;;
    --board) COMPREPLY=($(compgen -W "mps3-an547 mps2-an386 mps2-an500" -- "$cur")); return ;;
    --input) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --keep) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --memory.op_order) COMPREPLY=($(compgen -W "model min_peak" -- "$cur")); return ;;
    --memory.in_place) COMPREPLY=($(compgen -W "false true speed size" -- "$cur")); return ;;
    --path) COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur")
                       $(compgen -d -- "$cur")); return ;;
    --report) COMPREPLY=($(compgen -f -X '!*.html' -- "$cur") $(compgen -d -- "$cur")); return ;;
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --planner-options|--subgraph|--alignment|--capacity|--prefix) return ;;
  esac
  case $cmd in
    help) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "convert plan inspect solve profile" -- "$cur")); return ;;
    convert) words="--path --report --allow-unsupported --force --verbose --quiet --help $(_memplan_config_keys "${COMP_WORDS[0]}")" ;;
    plan) words="--path --planner --planner-options --platform --subgraph --prefix --json --report --verbose --quiet --help $(_memplan_config_keys "${COMP_WORDS[0]}")" ;;
    inspect) words="--subgraph --alignment --json --memory.op_order --help" ;;
    solve) words="--planner --planner-options --capacity --alignment -o --output --help" ;;
    profile) words="--path --board --input --json --keep --help $(_memplan_config_keys "${COMP_WORDS[0]}")" ;;
    *) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    case $cmd in
      plan) COMPREPLY=($(compgen -f -X '!*.tflite' -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur")
                       $(compgen -f -X '!*.yml' -- "$cur") $(compgen -d -- "$cur")) ;;
      inspect) COMPREPLY=($(compgen -f -X '!*.tflite' -- "$cur") $(compgen -d -- "$cur")) ;;
      solve) COMPREPLY=($(compgen -f -X '!*.csv' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
  fi
}
complete -F _memplan memplan
