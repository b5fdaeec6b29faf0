#!/usr/bin/env bash
# End-to-end: import the bundled sample, then list/show/search/stats and the error paths.
# Usage: bash core_sample.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
src=$SRC tmp=$T db=$DB  # the names used below
sample=("$src"/data/sample/*.json "$src"/data/sample/*.jsonl)
labeled=$(($(wc -l <"$src/data/sample/labels.csv") - 1))

# Import twice: same counts, second time nothing inserted.
out=$(cf import "${sample[@]}") || fail "import: $out"
echo "$out" | grep -q "0 updated" || fail "first import: $out"
before=$(counts)
out=$(cf import "${sample[@]}") || fail "re-import"
echo "$out" | grep -q " 0 inserted, 0 updated" || fail "re-import changed something: $out"
[ "$(counts)" = "$before" ] || fail "re-import changed row counts"

# list --json: one object per labeled issue (pull requests hidden), with the promised keys.
cf list --json >"$tmp/list.json" || fail "list --json"
python3 - "$tmp/list.json" "$labeled" "$src/data/sample/labels.csv" <<'PY' || fail "list --json content"
import csv, json, sys
items = json.load(open(sys.argv[1]))
assert len(items) == int(sys.argv[2]), (len(items), sys.argv[2])
for it in items:
    for k in ("repo", "number", "title", "state", "labels", "created_at", "has_fix_link"):
        assert k in it, k
    assert not it["is_pull_request"]
want = {(r["repo"], int(r["number"])) for r in csv.DictReader(open(sys.argv[3]))}
assert {(i["repo"], i["number"]) for i in items} == want
PY
n_pr=$(cf list --include-prs --json | python3 -c 'import json,sys; print(sum(i["is_pull_request"] for i in json.load(sys.stdin)))')
[ "$n_pr" -ge 1 ] || fail "--include-prs shows no pull request"
# Filters agree with SQL over the same database.
want=$(sqlite3 "$db" "SELECT count(*) FROM issues i JOIN repositories r ON r.id=i.repo_id WHERE r.full_name='onnx/tensorflow-onnx' AND i.is_pull_request=0 AND i.state='closed'")
got=$(cf list --repo onnx/tensorflow-onnx --state closed | wc -l)
[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "list --repo --state: $got vs $want"
want=$(sqlite3 "$db" "SELECT count(*) FROM issues WHERE has_fix_link=1 AND is_pull_request=0")
got=$(cf list --fixed --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert all(i["has_fix_link"] for i in d); print(len(d))')
[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "list --fixed: $got vs $want"
got=$(cf list --label 'module: onnx' --label triaged --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert all({"module: onnx","triaged"} <= set(i["labels"]) for i in d); print(len(d))')
[ "$got" -gt 0 ] || fail "list --label twice found nothing"
[ "$(cf list --limit 3 | wc -l)" = 3 ] || fail "list --limit"

# show: every stored comment with its author association appears.
ref=$(sqlite3 "$db" "SELECT r.full_name||'#'||i.number FROM issues i JOIN repositories r ON r.id=i.repo_id JOIN comments c ON c.issue_id=i.id WHERE c.author_association='COLLABORATOR' LIMIT 1")
[ -n "$ref" ] || fail "the sample has no comment with an association"
cf show "$ref" >"$tmp/show.txt" || fail "show $ref"
title=$(sqlite3 "$db" "SELECT title FROM issues i JOIN repositories r ON r.id=i.repo_id WHERE r.full_name||'#'||i.number='$ref'")
grep -qF "$title" "$tmp/show.txt" || fail "show lacks the title"
grep -q "(COLLABORATOR)" "$tmp/show.txt" || fail "show lacks the comment association"
cf show "$ref" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["comments"] and d["body"]' ||
  fail "show --json"

# search: the phrase finds exactly the issues whose text holds it (checked with SQL LIKE).
cf search '"INTERNAL ASSERT"' --limit 0 --json >"$tmp/search.json" || fail "search phrase"
want=$(sqlite3 "$db" "SELECT count(DISTINCT i.id) FROM issues i LEFT JOIN comments c ON c.issue_id=i.id WHERE i.is_pull_request=0 AND (i.title LIKE '%INTERNAL ASSERT%' OR i.body LIKE '%INTERNAL ASSERT%' OR c.body LIKE '%INTERNAL ASSERT%')")
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(any("[INTERNAL ASSERT]" in s["text"] for s in h["snippets"]) for h in d); print(len(d))' "$tmp/search.json")
[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "search \"INTERNAL ASSERT\": $got vs $want"
cf search transpose optimizer | grep -q '\[transpose\]' || fail "plain search shows no [..] markers"
cf search --fts 'torch.onnx' >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "search query" "$tmp/err" || fail "FTS syntax error: rc=$rc $(cat "$tmp/err")"
cf search 'torch.onnx.export' | grep -q . || fail "code search found nothing"

# stats --json agrees with the tables.
cf stats --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["issues"] == int(sys.argv[1]), s["issues"]
assert s["comments"] == int(sys.argv[2])
assert s["repositories"] >= 2 and len(s["per_repository"]) == s["repositories"]
conv = {r["repo"]: r["converter"] for r in s["per_repository"]}
assert conv["pytorch/pytorch"] == "torch.onnx" and conv["onnx/tensorflow-onnx"] == "tf2onnx", conv
' "$labeled" "$(sqlite3 "$db" 'SELECT count(*) FROM comments')" || fail "stats --json"
cf stats | grep -q "tf2onnx" || fail "stats text lacks converter names"

# Errors: exit codes and one-line messages.
cf frobnicate >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown subcommand: rc=$rc"
cf list --bogus >/dev/null 2>&1; [ $? = 2 ] || fail "bad option must exit 2"
cf list --state maybe >/dev/null 2>&1; [ $? = 2 ] || fail "bad --state must exit 2"
cf show not-a-ref >/dev/null 2>&1; [ $? = 2 ] || fail "bad reference must exit 2"
cf show pytorch/pytorch#1 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || fail "unknown issue: rc=$rc"

# A malformed file (bad JSON on line 3 of a valid-looking JSONL) changes nothing.
before=$(counts)
{ head -n 2 "$src/data/sample/threads.jsonl"; echo '{"repo":"a/b","number":1,'; } >"$tmp/bad.jsonl"
cf import "$src/data/sample/pytorch_issues.json" "$tmp/bad.jsonl" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc != 0 ] || fail "malformed import succeeded"
grep -q "bad.jsonl:3:" "$tmp/err" || fail "no file:line in: $(cat "$tmp/err")"
[ "$(counts)" = "$before" ] || fail "malformed import changed row counts"
echo "ok"
