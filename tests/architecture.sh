#!/usr/bin/env bash
# Enforces ARCHITECTURE.md's include rule: every `#include "<folder>/..."` in every .h/.cpp must
# name a module its own module may use (table below, same as ARCHITECTURE.md: keep them in step),
# and no file includes <regex> (RE2 is the only regex engine). Prints FILE:LINE of each offence.
# Usage: bash tests/architecture.sh [SOURCE_DIR]   (tracked files in a git checkout, else find)
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"


# The module a file belongs to, from its path ("" when it is in none).
module_of() {
  case $1 in
    src/core/*) echo core ;;
    src/cli/*) echo cli ;;
    crawler/* | classifier/* | labeling/* | repro/* | reports/* | testing/* | web/* | tests/* | bench/*) echo "${1%%/*}" ;;
    *) echo "" ;;
  esac
}

# The include rule: the modules (first component of `#include "x/..."`) each module may include,
# besides itself. tests/ (the fake GitHub server, test helpers) is for tests and bench only.
allowed() {
  case $1 in
    core) echo "" ;;
    crawler | labeling | repro) echo "core" ;;
    classifier | reports) echo "core labeling" ;;
    testing) echo "core classifier repro reports" ;;
    web) echo "core labeling reports" ;;
    cli) echo "core crawler classifier labeling repro reports testing web" ;;
    tests | bench) echo "core cli crawler classifier labeling repro reports testing web tests" ;;
  esac
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.h' '*.cpp')
else
  mapfile -t files < <(find . \( -name node_modules -o -name 'build*' -o -name .git \) -prune -o \
    -type f \( -name '*.h' -o -name '*.cpp' \) -print | sed 's|^\./||' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "architecture: no .h/.cpp files under $PWD" >&2; exit 1; }

bad=0
offence() { echo "$1" >&2; bad=$((bad + 1)); }
for f in "${files[@]}"; do
  mod=$(module_of "$f")
  if [ -z "$mod" ]; then
    offence "$f: not in a module folder of ARCHITECTURE.md"
    continue
  fi
  ok=" $mod $(allowed "$mod") "
  # Quoted includes with a folder: "<line>:<folder>".
  while IFS=: read -r line inc; do
    [[ $ok == *" $inc "* ]] ||
      offence "$f:$line: $mod may not include \"$inc/...\" (ARCHITECTURE.md, include rule)"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "$f" |
    sed -E 's|^([0-9]+):[^"]*"([^"/]+)/.*|\1:\2|')
  while IFS=: read -r line _; do
    offence "$f:$line: includes <regex>; use RE2 (re2/re2.h)"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<regex>' "$f")
done

if [ $bad -gt 0 ]; then
  echo "architecture: $bad forbidden include(s)" >&2
  exit 1
fi
echo "architecture: ${#files[@]} files follow the include rule"
