#!/bin/sh
# The layers of bench/, checked on the objects the build made:
#   layers.sh --layer NAME OBJ... --layer NAME OBJ... (bottom layer first)
# 1. no layer's object refers to a symbol that a layer above it defines
#    (the link checks of CMakeLists.txt make that a build failure too);
# 2. in cli, no subcommand file (cmd_*.c) calls a function that another
#    subcommand file defines: what two commands share lives below them.
# Exit 0, or 1 listing each offending reference; 77 without nm.
command -v nm >/dev/null 2>&1 || { echo "skipped: no nm"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
layers=""
cur=""
for a in "$@"; do
  if [ "$cur" = "--layer" ]; then
    cur=$a
    layers="$layers $a"
    : > "$tmp/$a.objs"
    continue
  fi
  if [ "$a" = "--layer" ]; then cur=--layer; continue; fi
  echo "$a" >> "$tmp/$cur.objs"
done
defined() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
undefined() { nm -u "$@" 2>/dev/null | awk '{ print $NF }' | sort -u; }
bad=0
above=""
# walk from the top down: each layer must not use what the layers above define
for l in $(echo $layers | tr ' ' '\n' | tac); do
  if [ -n "$above" ]; then
    # shellcheck disable=SC2086
    undefined $(cat "$tmp/$l.objs") > "$tmp/u"
    # shellcheck disable=SC2086
    defined $above > "$tmp/d"
    for s in $(comm -12 "$tmp/u" "$tmp/d"); do
      echo "layer $l uses $s, defined in a layer above it"
      bad=1
    done
  fi
  above="$above $(cat "$tmp/$l.objs" | tr '\n' ' ')"
done
n=0
for o in $(cat "$tmp/cli.objs" 2>/dev/null); do
  case "$(basename "$o")" in cmd_*) ;; *) continue ;; esac
  n=$((n + 1))
  others=""
  for p in $(cat "$tmp/cli.objs"); do
    case "$(basename "$p")" in cmd_*) [ "$p" != "$o" ] && others="$others $p" ;; esac
  done
  undefined "$o" > "$tmp/u"
  # shellcheck disable=SC2086
  defined $others > "$tmp/d"
  for s in $(comm -12 "$tmp/u" "$tmp/d"); do
    echo "$(basename "$o" .c.o) calls $s, defined in another subcommand file"
    bad=1
  done
done
echo "layers:$layers; $n subcommand files; $( [ $bad = 0 ] && echo "no reference up or across" || echo "references above")"
exit $bad
