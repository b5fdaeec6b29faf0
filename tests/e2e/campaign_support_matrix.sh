#!/usr/bin/env bash
# `convfail test support`: the measured support matrix on the pinned ONNX Runtime, for a handful
# of operators, finds a gap of each kind and a pair that works, as stored classes: sinh float32
# (torch.onnx 1.13 has no export of aten::sinh at opset 16: export_raised), sin int8 (exported
# without a cast, an ONNX Sin on int8 the checker refuses: invalid_export), softplus float64 (no
# ONNX Runtime kernel: no_kernel), relu float32 (works), softplus int8 (eager refuses it: stored
# as not_in_eager without running). Measured once: a second run measures nothing, --remeasure
# measures again. The printed gaps, the JSON, CSV and HTML, /api/support of `serve`; an unknown
# operator is one line, exit 2.
# Usage: bash campaign_support_matrix.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
cf init >/dev/null || fail "init"
OPS=(--ops sinh,sin,softplus,relu --dtypes float32 float64 int8 --opset 16 --jobs 2)

t0=$(date +%s)
cf test support "${OPS[@]}" --format json --out "$T/m.json" 2>"$T/err" ||
  fail "support: $(tail -5 "$T/err")"
echo "measured in $(($(date +%s) - t0)) s: $(tail -1 "$T/err")"
cls() {
  sqlite3 "$DB" "SELECT class FROM support_cells WHERE op = '$1' AND dtype = '$2' AND opset = 16"
}
for want in "sinh float32 export_raised" "sin int8 invalid_export" \
  "softplus float64 no_kernel" "relu float32 works" "softplus int8 not_in_eager"; do
  set -- $want
  got=$(cls "$1" "$2")
  [ "$got" = "$3" ] || fail "$1 $2: stored '$got', expected $3 ($(sqlite3 "$DB" "SELECT stage,
    message FROM support_cells WHERE op = '$1' AND dtype = '$2'" | head -c 400))"
done
echo "ok   one gap of each kind and a working pair, as stored classes"
n=$(sqlite3 "$DB" "SELECT count(*) FROM support_cells")
[ "$n" = 12 ] || fail "expected 4 operators x 3 types = 12 cells, stored $n"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM support_cells WHERE class = 'not_in_eager' AND
  seconds = 0")" -ge 1 ] || fail "a pair eager refuses was run"
sqlite3 "$DB" "SELECT message FROM support_cells WHERE op = 'sin' AND dtype = 'int8'" |
  grep -qi "sin" || fail "the invalid export does not say the checker's rule"
jq -e '.matrices | length == 1' "$T/m.json" >/dev/null || fail "json: $(head -c 300 "$T/m.json")"
jq -e --argjson n "$n" '[.matrices[0].cells_per_class[]] | add == $n' "$T/m.json" >/dev/null ||
  fail "cells per class do not add up to $n"
jq -e '.gaps[] | select(.op == "softplus" and .dtype == "float64") | .summary |
  test("^no_kernel up to [0-9]")' "$T/m.json" >/dev/null || fail "no gap line for softplus float64"
echo "ok   json: cells per class add up, the gap says 'no_kernel up to' the release"

# Measured once per version triple; --remeasure forces it.
cf test support "${OPS[@]}" >"$T/m.md" 2>"$T/err" || fail "again: $(tail -3 "$T/err")"
expect_grep "0 cells measured" "$T/err"
expect_grep "no_kernel up to" "$T/m.md"
expect_grep "softplus | float64 | 16" "$T/m.md"
cf test support --ops relu --dtypes float32 --opset 16 --remeasure --jobs 1 >/dev/null \
  2>"$T/err" || fail "remeasure: $(tail -3 "$T/err")"
expect_grep " 1 cells measured" "$T/err"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM support_cells")" = 1 ] || fail "--remeasure kept old cells"
cf test support "${OPS[@]}" >/dev/null 2>"$T/err" || fail "refill: $(tail -3 "$T/err")"
echo "ok   measured once; --remeasure measures again"

cf test support --no-measure --format csv >"$T/m.csv" || fail "csv"
grep -q "^support_gaps,sin int8 (16),Summary,invalid_export up to " "$T/m.csv" ||
  fail "csv: $(grep support_gaps "$T/m.csv" | head -5)"
cf test support --no-measure --format html --out "$T/m.html" || fail "html"
expect_grep "Gaps and the first release where they work" "$T/m.html"
expect_exit 2 cf test support --ops nosuchop --opset 16
expect_grep "no operator 'nosuchop'" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "unknown operator: $(cat "$T/err")"
cf test support --no-measure --dtypes int8 --json >"$T/i8.json" || fail "--dtypes int8"
jq -e '[.matrices[0].cells[].dtype] | unique == ["int8"]' "$T/i8.json" >/dev/null ||
  fail "--dtypes int8 shows $(jq -c '[.matrices[0].cells[].dtype] | unique' "$T/i8.json")"
cf test support --no-measure --dtypes all --json >"$T/all.json" || fail "--dtypes all"
jq -e '[.matrices[0].cells[].dtype] | unique == ["float32", "float64", "int8"]' "$T/all.json" \
  >/dev/null || fail "--dtypes all shows $(jq -c '[.matrices[0].cells[].dtype] | unique' "$T/all.json")"
echo "ok   csv and html; --dtypes narrows the view; an unknown operator is one line, exit 2"

# serve: /api/support answers the same matrix, JSON by default.
source "$(dirname "$0")/lib_web.sh"
start_server
[ "$(http GET /api/support)" = 200 ] || fail "/api/support: $(head -c 300 "$T/body")"
jq -e --argjson n "$n" '[.matrices[0].cells_per_class[]] | add == $n' "$T/body" >/dev/null ||
  fail "/api/support: $(head -c 300 "$T/body")"
[ "$(http GET '/api/support?format=html')" = 200 ] && grep -q "Support matrix" "$T/body" ||
  fail "/api/support?format=html: $(head -c 300 "$T/body")"
[ "$(http GET '/api/support?format=x')" = 400 ] || fail "/api/support?format=x is not a 400"
echo "ok   serve: /api/support"
