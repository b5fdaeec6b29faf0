#!/usr/bin/env bash
# Enforces ARCHITECTURE.md's include rule: every `#include "<folder>/..."` in every .h/.cpp must
# name a module its own module may use (table below, same as ARCHITECTURE.md: keep them in step),
# and no file includes <regex> (RE2 is the only regex engine). And its table owners: a table named
# in SQL (FROM, JOIN, INTO, UPDATE, DELETE FROM in a string literal) must be owned by the file's
# module or, for a read, be read by it in ARCHITECTURE.md's "also read by" column; the owner table
# is read from ARCHITECTURE.md itself (one source of truth), and every table of schema/*.sql must
# be in it. And library entry points return results: no module header (cli, tests and bench
# aside) declares a run_* function with a std::ostream& parameter. Prints FILE:LINE of each offence.
# Usage: bash tests/architecture.sh [SOURCE_DIR]   (tracked files in a git checkout, else find)
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"


# The module a file belongs to, from its path ("" when it is in none).
module_of() {
  case $1 in
    core/*) echo core ;;
    cli/*) echo cli ;;
    crawler/* | classifier/* | exec/* | labeling/* | labelsets/* | repro/* | reports/* | campaign/* | views/* | web/* | tests/* | bench/*) echo "${1%%/*}" ;;
    *) echo "" ;;
  esac
}

# The include rule: the modules (first component of `#include "x/..."`) each module may include,
# besides itself. tests/ (the fake GitHub server, test helpers) is for tests and bench only.
allowed() {
  case $1 in
    core) echo "" ;;
    crawler | labeling | exec) echo "core" ;;
    repro) echo "core exec" ;;
    classifier) echo "core labeling" ;;
    labelsets) echo "core labeling classifier" ;;
    reports) echo "core labeling labelsets" ;;
    views) echo "core labeling labelsets classifier repro" ;;
    web) echo "core labeling labelsets repro reports campaign views" ;;
    campaign) echo "core labeling labelsets classifier exec repro reports" ;;
    cli) echo "core crawler classifier exec labeling labelsets repro reports campaign views web" ;;
    tests | bench)
      echo "core cli crawler classifier exec labeling labelsets repro reports campaign views web tests"
      ;;
  esac
}

# Headers any module may include: plain constants of the module that owns them.
vocabulary=(repro/verdicts.h repro/runtime_history.h)

# Known cross-module SQL, "FILE TABLE": each with its reason; "to move" marks debt to remove.
# An entry that no longer matches anything is an offence too (delete it when the debt is paid).
# tests/ and bench/ are not checked: they seed and inspect databases as a test must.
sql_allowed=(
)

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
  # Quoted includes with a folder: "<line>:<folder>:<path>". Header-only vocabularies (the verdict
  # names of repro_runs) may be included by every module.
  while IFS=: read -r line inc path; do
    [[ $ok == *" $inc "* || " ${vocabulary[*]} " == *" $path "* ]] ||
      offence "$f:$line: $mod may not include \"$inc/...\" (ARCHITECTURE.md, include rule)"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "$f" |
    sed -E 's|^([0-9]+):[^"]*"(([^"/]+)/[^"]*)".*|\1:\3:\2|')
  while IFS=: read -r line _; do
    offence "$f:$line: includes <regex>; use RE2 (re2/re2.h)"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<regex>' "$f")
done

# Table owners, from ARCHITECTURE.md's "Table owners" rows: | `table` | `owner` | readers | ... |
declare -A owner readers
while IFS='|' read -r _ t o r _; do
  t=$(echo "$t" | tr -d '` ') o=$(echo "$o" | tr -d '` ') r=$(echo "$r" | tr -d '`,')
  [[ $t =~ ^[a-z_0-9]+$ && $o =~ ^[a-z]+(/[a-z_0-9]+)*$ ]] || continue
  owner[$t]=$o
  [[ $r == *"every module"* ]] && r=all
  read -ra rs <<<"$r"
  readers[$t]=" ${rs[*]} "
done < <(sed -n '/^## Table owners/,/^## /p' ARCHITECTURE.md 2>/dev/null | grep -E '^\|[[:space:]]*`')
[ ${#owner[@]} -gt 0 ] || offence "ARCHITECTURE.md: no rows in its \"Table owners\" table"
# Every table, view and FTS5 table the migrations create has an owner.
while IFS=: read -r f line t; do
  [ -n "${owner[$t]:-}" ] || offence "$f:$line: table $t has no owner in ARCHITECTURE.md (Table owners)"
done < <(grep -HnoiE 'create[[:space:]]+(virtual[[:space:]]+)?(table|view)[[:space:]]+(if[[:space:]]+not[[:space:]]+exists[[:space:]]+)?[a-z_0-9]+' \
  schema/*.sql 2>/dev/null | sed -E 's/^([^:]*):([0-9]+):.*[[:space:]]([A-Za-z_0-9]+)$/\1:\2:\3/' |
  tr '[:upper:]' '[:lower:]')

# The tables each file names in SQL: "FILE:LINE:read|write:TABLE". String literals are joined
# when only blanks or comments separate them (C++ concatenation), raw strings included; the
# names kept are those of the owner table (other words after FROM are prose, CTEs, functions).
sql_uses() {
  TABLES="${!owner[*]}" perl - "$@" <<'PERL'
use strict; use warnings;
my %tables = map { $_ => 1 } split ' ', $ENV{TABLES};
for my $f (@ARGV) {
  open my $fh, '<', $f or die "$f: $!"; local $/; my $src = <$fh>; close $fh;
  # A run: [joined text, [[offset in the text, offset in the file] per literal]].
  my @runs; my ($cur, $end) = (undef, -1);
  while ($src =~ m{//[^\n]*|/\*.*?\*/|R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"|'(?:[^'\\\n]|\\.)*'}gs) {
    my ($s, $e) = ($-[0], $+[0]);
    my ($text, $at) = defined $2 ? ($2, $-[2]) : defined $3 ? ($3, $-[3]) : next;
    my $gap = $end >= 0 ? substr($src, $end, $s - $end) : 'x';
    $gap =~ s{//[^\n]*|/\*.*?\*/}{}gs;
    push @runs, $cur = ['', []] unless defined $cur && $gap =~ /^\s*$/;
    push @{$cur->[1]}, [length $cur->[0], $at];
    $cur->[0] .= $text;
    $end = $e;
  }
  for my $r (@runs) {
    while ($r->[0] =~ /\b(DELETE\s+FROM|FROM|JOIN|INTO|UPDATE)\s+([A-Za-z_][A-Za-z0-9_]*)(?![\w.])/gi) {
      my ($kw, $t, $p) = (uc $1, lc $2, $-[2]);
      next unless $tables{$t};
      my ($seg) = grep { $_->[0] <= $p } reverse @{$r->[1]};
      my $line = 1 + (substr($src, 0, $seg->[1] + $p - $seg->[0]) =~ tr/\n//);
      print "$f:$line:", ($kw eq 'FROM' || $kw eq 'JOIN' ? 'read' : 'write'), ":$t\n";
    }
  }
}
PERL
}

declare -A allow allowed_used
for entry in "${sql_allowed[@]}"; do allow[$entry]=1; done
sql_bad=0
checked=()
for f in "${files[@]}"; do
  case $(module_of "$f") in "" | tests | bench) ;; *) checked+=("$f") ;; esac
done
while IFS=: read -r f line kind t; do
  mod=$(module_of "$f")
  own=${owner[$t]}
  if [[ $own == */* ]]; then  # one file of a module owns it: module/file
    [ "${f%.*}" = "$own" ] && continue
  else
    [ "$mod" = "$own" ] && continue
  fi
  [[ $kind == read && (${readers[$t]} == *" all "* || ${readers[$t]} == *" $mod "*) ]] && continue
  entry="$f $t"
  if [ -n "${allow[$entry]:-}" ]; then
    allowed_used[$entry]=1
    continue
  fi
  offence "$f:$line: $mod ${kind}s $t, owned by ${owner[$t]} (ARCHITECTURE.md, table owners)"
  sql_bad=$((sql_bad + 1))
done < <([ ${#checked[@]} -eq 0 ] || [ ${#owner[@]} -eq 0 ] || sql_uses "${checked[@]}" | sort -u -t: -k1,1 -k2,2n -k3)
for entry in "${sql_allowed[@]}"; do  # (entries of files absent from the tree are not checked)
  [ -n "${allowed_used[$entry]:-}" ] || [ ! -f "${entry% *}" ] ||
    offence "tests/architecture.sh: allow-list entry \"$entry\" matches no SQL: remove it"
done

# A table one file owns has one reader: one SQL read (FROM or JOIN) of it in that file, the row
# decoder every other function of the owner goes through (one row type, one reader per table).
declare -A reads_of
for t in "${!owner[@]}"; do
  own=${owner[$t]}
  [[ $own == */* ]] || continue
  for ext in cpp h; do [ -f "$own.$ext" ] && reads_of[$t]+=" $own.$ext"; done
done
for t in "${!reads_of[@]}"; do
  read -ra owner_files <<<"${reads_of[$t]}"
  mapfile -t reads < <(sql_uses "${owner_files[@]}" | awk -F: -v t="$t" '$3 == "read" && $4 == t')
  for r in "${reads[@]:1}"; do
    offence "${r%%:read:*}: another reader of $t (its owner ${owner[$t]} has one, at ${reads[0]%%:read:*})"
  done
done

# The campaign's rooms (ARCHITECTURE.md, campaign/): its types at the bottom (campaign/*.h), then
# store, groups, run and analysis (side by side), report on top. A room includes its own and
# the rooms below it, never one above or beside it: the store never sees the oracle.
room_of() {
  case $1 in
    campaign/*/*) local r=${1#campaign/}; echo "${r%%/*}" ;;
    campaign/*) echo types ;;
  esac
}
rooms_below() {
  case $1 in
    types) echo "types" ;;
    store) echo "types store" ;;
    groups) echo "types store groups" ;;
    run) echo "types store groups run" ;;
    analysis) echo "types store groups analysis" ;;
    report) echo "types store groups analysis report" ;;
  esac
}
for f in "${files[@]}"; do
  [[ $f == campaign/* ]] || continue
  room=$(room_of "$f")
  below=" $(rooms_below "$room") "
  [ "$below" != "  " ] || { offence "$f: not in a room of campaign/ (ARCHITECTURE.md)"; continue; }
  while IFS=: read -r line path; do
    inc_room=$(room_of "$path")
    [[ $below == *" $inc_room "* ]] ||
      offence "$f:$line: includes \"$path\" ($room may not include $inc_room, a room above or beside it)"
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"campaign/' "$f" |
    sed -E 's|^([0-9]+):[^"]*"([^"]*)".*|\1:\2|')
done
# Library entry points return results and the command line prints them (ARCHITECTURE.md, cli):
# no module header declares a run_* function with a std::ostream& parameter ("FILE:LINE:NAME").
ostream_entry_points() {
  perl - "$@" <<'PERL'
use strict; use warnings;
for my $f (@ARGV) {
  open my $fh, '<', $f or die "$f: $!"; local $/; my $src = <$fh>; close $fh;
  $src =~ s{//[^\n]*|/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]/ /g; $c }gse;  # comments out, lines kept
  while ($src =~ /\b(run_\w*)\s*\(([^;{]*?)\)\s*(?:const\s*)?(?:noexcept\s*)?[;{]/gs) {
    my ($name, $params, $at) = ($1, $2, $-[1]);
    next unless $params =~ /\bostream\s*&/;
    print "$f:", 1 + (substr($src, 0, $at) =~ tr/\n//), ":$name\n";
  }
}
PERL
}
headers=()
for f in "${files[@]}"; do
  case $(module_of "$f") in "" | cli | tests | bench) ;; *) if [[ $f == *.h ]]; then headers+=("$f"); fi ;; esac
done
while IFS=: read -r f line name; do
  offence "$f:$line: $name takes a std::ostream&: return a result, print it in cli"
done < <([ ${#headers[@]} -eq 0 ] || ostream_entry_points "${headers[@]}")

# The web takes a path's parameters from its route table ("{name}" segments, web/routes.h), never
# by counting characters off the path; the table's matcher (web/routes.cpp) is the one splitter.
for f in "${files[@]}"; do
  [[ $f == web/* && $f != web/routes.cpp ]] || continue
  while IFS=: read -r line _; do
    offence "$f:$line: a path parameter cut by hand; name it in the route table (web/routes.h)"
  done < <(grep -nE '\bpath\.substr\(' "$f")
done

if [ $bad -gt 0 ]; then
  echo "architecture: $bad offence(s), $sql_bad of them cross-module SQL" >&2
  exit 1
fi
echo "architecture: ${#files[@]} files follow the include rule; ${#checked[@]} follow the table" \
  "owners (${#sql_allowed[@]} allowed exceptions)"
