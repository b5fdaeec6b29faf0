#!/usr/bin/env bash
# One issue dossier (views/dossier) for both front ends: `convfail show --json` and the web's
# GET /api/issues/OWNER/REPO/N?blind=0 print the same dossier for every issue (classifier labels,
# evidence and highlights in UTF-16 units past non-ASCII text, two annotators' history and
# current labels, every repro run and the latest verdict per program); the web adds only its page
# fields (rendered Markdown, GitHub link, repro rows per program, runtime history); blind answers
# hold only the viewer's labels; the terminal view marks the same evidence.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

# Synthetic issues (no third-party text): accents and an emoji before the evidence, so byte,
# code point and UTF-16 offsets all differ.
python3 - "$T" <<'PY'
import json, sys
rows = [
  {"repo": "acme/conv", "number": 1, "title": "export crashes with a segmentation fault",
   "body": "Caf\u00e9 \U0001F600 torch.onnx.export crashes: Segmentation fault (core dumped) at opset 17",
   "state": "closed", "created_at": "2021-03-01T00:00:00Z",
   "comments": [{"author": "x", "body": "na\u00efve: same crash here with opset 17"},
                {"author": "y", "body": "\U0001F600 the converted model gives wrong results"}]},
  {"repo": "acme/conv", "number": 2, "title": "wrong output after conversion",
   "body": "the converted model gives wrong results, max abs diff 0.5", "state": "open",
   "created_at": "2022-05-01T00:00:00Z"},
  {"repo": "other/tool", "number": 7, "title": "hang while exporting",
   "body": "", "state": "open", "created_at": "2023-01-01T00:00:00Z"},
]
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null
cf label acme/conv#1 --annotator ann --symptom crash --cause incompatibility >/dev/null
cf label acme/conv#1 --annotator bob --symptom crash >/dev/null
cf label acme/conv#1 --annotator bob --symptom wrong_model >/dev/null
cf label acme/conv#2 --annotator bob --symptom wrong_model >/dev/null
# Two runs of one model (the latest counts) and a script run.
sqlite3 "$DB" "INSERT INTO repro_runs(issue_id, artifact_id, model_path, verdict, step, signature)
  SELECT id, NULL, 'm.onnx', 'not_runnable', 'load', 'E1' FROM issues WHERE number = 1;
  INSERT INTO repro_runs(issue_id, artifact_id, model_path, verdict, step, signature)
  SELECT id, NULL, 'm.onnx', 'crash_reproduced', 'export', 'SIGSEGV' FROM issues WHERE number = 1;
  INSERT INTO repro_runs(issue_id, verdict, step, script_source, message)
  SELECT id, 'not_reproduced', 'run', 'body', 'ran to the end' FROM issues WHERE number = 1;"

start_server
for ref in acme/conv#1 acme/conv#2 other/tool#7; do
  cf show "$ref" --json >"$T/show.json"
  expect_status 200 GET "/api/issues/${ref%#*}/${ref#*#}?blind=0"
  python3 - "$T/show.json" "$T/body" <<'PY' || fail "$ref: show --json and the web's issue JSON differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
# The page's additions (web/issue_page: rendered Markdown, the GitHub link, repro rows per
# program, runtime history) come on top of the dossier; everything else is the dossier's.
page = {"body_html", "comments_html", "github_url", "repro_programs", "runtime_history"}
if not page <= set(b) or page & set(a):
    print("page fields:", sorted(page - set(b)), sorted(page & set(a)))
    sys.exit(1)
b = {k: v for k, v in b.items() if k not in page}
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k): print("differs:", k, a.get(k), b.get(k))
    sys.exit(1)
PY
done

# What the dossier holds, checked on the web's copy of #1.
expect_status 200 GET '/api/issues/acme/conv/1?blind=0'
json_check 'd["blind"] is False and set(d["current"]) == {"ann", "bob"} and d["current"]["bob"]["symptom"]["value"] == "wrong_model"'
json_check '[r["annotator"] for r in d["history"]] == ["ann", "ann", "bob", "bob"] and all(set(r) == {"id","annotator","dimension","kind","created_at","value","note","source"} for r in d["history"])'
json_check '[r["verdict"] for r in d["repro"]] == ["not_runnable", "crash_reproduced", "not_reproduced"]'
json_check 'sorted((v["kind"], v["verdict"]) for v in d["verdicts"]) == [("model", "crash_reproduced"), ("script", "not_reproduced")] and all(v["started_at"] for v in d["verdicts"])'
json_check 'd["classifier"]["run_id"] >= 1 and d["classifier"]["dimensions"]["symptom"]["label"] == "crash" and d["classifier"]["evidence"]'
json_check 'len(d["highlights"]["comments"]) == 2 and d["highlights"]["body"]'
# Highlights are UTF-16 offsets: the marked text of the body is the evidence, past "Café 😀 ".
python3 - "$T/body" <<'PY' || fail "highlight offsets are not UTF-16 units"
import json, sys
d = json.load(open(sys.argv[1]))
def utf16(s): return s.encode("utf-16-le")
for text, ranges in [(d["body"], d["highlights"]["body"])] + list(zip([c["body"] for c in d["comments"]], d["highlights"]["comments"])):
    u = utf16(text)
    for a, b, rules in ranges:
        marked = u[2 * a:2 * b].decode("utf-16-le")
        assert marked.strip() and rules and ": " in rules, (marked, rules)
        assert any(marked in e["matched_text"] or e["matched_text"] in marked for e in d["classifier"]["evidence"]), marked
assert d["highlights"]["body"][0][0] > len("Caf\u00e9 \U0001F600 ".encode("utf-16-le")) // 2 - 1
PY
# Blind: the viewer's own labels only.
expect_status 200 GET /api/issues/acme/conv/1 -H 'Cookie: convfail_annotator=ann'
json_check 'd["blind"] is True and set(d["current"]) == {"ann"} and {r["annotator"] for r in d["history"]} == {"ann"}'
expect_status 404 GET /api/issues/acme/conv/99
expect_exit 1 cf show acme/conv#99 --json
stop_server

# The terminal view marks the same evidence: piped annotate shows [[...]] around it.
printf 'q\n' | cf annotate --annotator carol --queue unlabeled --size 1 >"$T/annotate.out" 2>&1 || true
grep -q '\[\[[^]]*\]\]' "$T/annotate.out" || fail "annotate marks no evidence: $(head -c 800 "$T/annotate.out")"
echo "web_dossier: ok"
