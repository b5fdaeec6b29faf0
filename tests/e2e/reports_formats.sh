#!/usr/bin/env bash
# `convfail report` in every format on a small synthetic label set (HTML parsed as XML with one
# <svg> per chart, LaTeX structure, CSV shape, JSON shape), its errors, and `convfail opsets`.
# Usage: bash reports_formats.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3/python3 missing"

# Six synthetic issues over two converters; labels by "ann" (and "bob" on three), repro runs.
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
issues = [("pytorch/pytorch", 1, "2020-01-15"), ("pytorch/pytorch", 2, "2020-05-02"),
          ("pytorch/pytorch", 3, "2021-08-30"), ("onnx/tensorflow-onnx", 1, "2019-12-31"),
          ("onnx/tensorflow-onnx", 2, "2020-02-01"), ("onnx/tensorflow-onnx", 3, None)]
with open(f"{d}/issues.jsonl", "w") as f:
    for repo, n, created in issues:
        o = {"repo": repo, "number": n, "title": f"synthetic {n} <&>"}
        if created: o["created_at"] = created
        f.write(json.dumps(o) + "\n")
labels = {("pytorch/pytorch", 1): ("crash", "incompatibility", "external", "node_conversion"),
          ("pytorch/pytorch", 2): ("wrong_model", "type_problem", "node", "optimization"),
          ("pytorch/pytorch", 3): ("crash", "shape_problem", "", "node_conversion"),
          ("onnx/tensorflow-onnx", 1): ("crash", "incompatibility", "internal", "load_model"),
          ("onnx/tensorflow-onnx", 2): ("build_failure", "typo", "", "export"),
          ("onnx/tensorflow-onnx", 3): ("wrong_model", "algorithmic_error", "", "node_conversion")}
def ins(repo, n, who, dim, value):
    return ("INSERT INTO manual_labels(issue_id, annotator, dimension, value, source) "
            f"SELECT i.id, '{who}', '{dim}', '{value}', 'e2e' FROM issues i JOIN repositories r "
            f"ON r.id = i.repo_id WHERE r.full_name = '{repo}' AND i.number = {n};\n")
with open(f"{d}/labels.sql", "w") as f:
    for (repo, n), vals in labels.items():
        for dim, v in zip(("symptom", "cause", "subtype", "stage"), vals):
            if v: f.write(ins(repo, n, "ann", dim, v))
    f.write(ins("pytorch/pytorch", 1, "bob", "symptom", "crash"))
    f.write(ins("pytorch/pytorch", 2, "bob", "symptom", "crash"))
    f.write(ins("onnx/tensorflow-onnx", 1, "bob", "symptom", "crash"))
    for repo, n, verdict in (("pytorch/pytorch", 1, "crash_reproduced"),
                             ("onnx/tensorflow-onnx", 3, "not_runnable")):
        f.write(f"INSERT INTO repro_runs(issue_id, verdict) SELECT i.id, '{verdict}' FROM issues i "
                f"JOIN repositories r ON r.id = i.repo_id WHERE r.full_name = '{repo}' AND i.number = {n};\n")
PY
cf import "$T/issues.jsonl" >/dev/null
sqlite3 "$DB" <"$T/labels.sql"

cf report --source ann --compare bob --format md >"$T/r.md"
cf report --source ann --compare bob --format csv >"$T/r.csv"
cf report --source ann --compare bob --format latex --standalone >"$T/r.tex"
cf report --source ann --compare bob --format json >"$T/r.json"
cf report --source ann --compare bob --format html --out "$T/r.html" 2>/dev/null
cf report --source ann --json --repo onnx/tensorflow-onnx --by quarter >"$T/tf.json"

python3 - "$T" <<'PY'
import csv, json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
md = open(f"{d}/r.md").read()
sections = re.findall(r"^## (.*)$", md, re.M)
assert len(sections) == 8, sections  # 4 study tables, trends, agreement, differences, repro

# HTML: well-formed XML, one <svg> per chart figure, no script, no external resource.
html = open(f"{d}/r.html").read()
root = ET.fromstring(html.replace("<!DOCTYPE html>", "", 1))
ns = {"h": "http://www.w3.org/1999/xhtml", "s": "http://www.w3.org/2000/svg"}
figures = root.findall(".//h:figure", ns)
assert len(figures) == 5, len(figures)  # stage, symptom, cause, trend, repro
for fig in figures:
    assert len(fig.findall("s:svg", ns)) == 1
    assert fig.find("s:svg/s:title", ns) is not None
assert len(root.findall(".//s:svg", ns)) == 5
assert len(root.findall(".//h:table", ns)) == len(sections)
assert not re.search(r"<script|src=|href=|https?://(?!www\.w3\.org)", html)
# Bars carry their values: the stage chart has one rect per converter and stage plus legend.
stage_svg = root.find(".//h:section[@id='stage_by_converter']//s:svg", ns)
assert len(stage_svg.findall("s:rect", ns)) == 2 * 6 + 2

# LaTeX (--standalone): a booktabs document, one tabular per table with balanced environments.
tex = open(f"{d}/r.tex").read()
for env in ("document", "table", "tabular"):
    assert tex.count(r"\begin{" + env + "}") == tex.count(r"\end{" + env + "}"), env
assert tex.count(r"\begin{tabular}") == len(sections)
assert tex.count(r"\toprule") == tex.count(r"\bottomrule") == len(sections)
assert r"\usepackage{booktabs}" in tex and "<&>" not in tex

# CSV: long form, four fields on every record.
rows = list(csv.reader(open(f"{d}/r.csv", newline="")))
assert rows[0] == ["table", "row", "column", "value"]
assert all(len(r) == 4 for r in rows)
assert ["stage_by_converter", "Node Conversion", "Total", "3"] in rows
assert ["stage_by_converter", "Node Conversion", "Share of total", "0.5000"] in rows
assert any(r[0] == "agreement" and r[1] == "Symptom" and r[2] == "Issues" and r[3] == "3" for r in rows)

# JSON: the issue's shape with the unbinned counts.
j = json.load(open(f"{d}/r.json"))
assert j["stage_by_converter"]["torch.onnx"]["node_conversion"] == 2
assert j["cause_by_symptom"]["tf2onnx"]["typo"]["build_failure"] == 1
assert j["symptom_by_converter"]["tf2onnx"]["hang"] == 0
assert j["repro_by_symptom"]["crash"]["confirmed"] == 1
assert j["repro_by_symptom"]["wrong_model"]["not_runnable"] == 1
assert [a for a in j["agreement"] if a["dimension"] == "symptom"][0]["issues"] == 3
tf = json.load(open(f"{d}/tf.json"))
assert tf["converters"] == ["tf2onnx"] and tf["issues"] == 3
assert tf["issues_by_period"] == {"2019-Q4": {"tf2onnx": 1}, "2020-Q1": {"tf2onnx": 1}, "unknown": {"tf2onnx": 1}}
print("ok: md, csv, latex, html, json")
PY

# Errors: one line, the right exit code.
set +e
cf report --source nobody >/dev/null 2>"$T/err"; rc=$?
set -e
[[ $rc == 1 ]] || fail "unknown source: exit $rc"
grep -q 'sources with labels: ann, bob' "$T/err" || fail "unknown source message: $(cat "$T/err")"
for bad in "--format pdf" "--since 2020-02-30x" "--by month"; do
  set +e
  cf report --source ann $bad >/dev/null 2>"$T/err"; rc=$?
  set -e
  [[ $rc == 2 ]] || fail "report $bad: exit $rc"
  [[ $(wc -l <"$T/err") -ge 1 ]] || fail "report $bad: no message"
done
set +e
cf report --source ann --out "$T/no/such/dir/r.md" 2>"$T/err"; rc=$?
set -e
[[ $rc == 1 ]] || fail "unwritable --out: exit $rc"

# opsets: the registry's history and issues by opset release period.
cf opsets >"$T/opsets.txt"
head -1 "$T/opsets.txt" | grep -q "opset  added  updated  total" || fail "opsets header"
cf opsets --json >"$T/opsets.json"
cf opsets --issues >"$T/issues.txt"
cf opsets --issues --json >"$T/issues.json"
grep -q "^Spearman correlation (operator changes vs issues, " "$T/issues.txt" || fail "no Spearman line"
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
j = json.load(open(f"{d}/opsets.json"))
by = {o["opset"]: o for o in j["opsets"]}
def versions(op):
    return [v for v, o in sorted(by.items()) if op in o["added_operators"] + o["updated_operators"]]
assert versions("Resize")[:3] == [10, 11, 13], versions("Resize")
assert "Resize" in by[10]["added_operators"]
assert versions("Gemm")[:6] == [1, 6, 7, 9, 11, 13], versions("Gemm")
assert versions("Conv")[:2] == [1, 11], versions("Conv")
for v, o in by.items():
    assert o["added"] == len(o["added_operators"]) and o["updated"] == len(o["updated_operators"])
i = json.load(open(f"{d}/issues.json"))
placed = sum(p["issues"] for p in i["periods"])
assert placed + i["issues_before"] + i["issues_after"] + i["issues_undated"] == 6
assert i["issues_undated"] == 1
# 2019-12-31 .. 2020-05-02 fall in opset 11's period (1.6 to 1.7), 2021-08-30 in opset 15's.
assert {p["opset"]: p["issues"] for p in i["periods"] if p["issues"]} == {11: 4, 15: 1}, i["periods"]
print("ok: opsets")
PY
echo "ok"
