#!/usr/bin/env bash
# Exports for pandas and LaTeX (#28 item 10): the report's CSV is tidy (every value one number or
# plain label), LaTeX is \input-able table fragments (--standalone: a document) with plain label
# keys, `report --per-issue` is one row per issue checked against the database by SQL, and
# `labels export --source classifier` carries the confidence.
# Usage: bash reports_exports.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3/python3 missing"

# Six issues over two converters; labels by ann (bob on three), a classifier run, repro runs
# (issue pytorch#1 ran twice: the latest verdict counts).
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
issues = [("pytorch/pytorch", 1, "2020-01-15"), ("pytorch/pytorch", 2, "2020-05-02"),
          ("pytorch/pytorch", 3, "2021-08-30"), ("onnx/tensorflow-onnx", 1, "2019-12-31"),
          ("onnx/tensorflow-onnx", 2, "2020-02-01"), ("onnx/tensorflow-onnx", 3, None)]
with open(f"{d}/issues.jsonl", "w") as f:
    for repo, n, created in issues:
        o = {"repo": repo, "number": n, "title": f"synthetic {n}"}
        if created: o["created_at"] = created
        f.write(json.dumps(o) + "\n")
labels = {("pytorch/pytorch", 1): ("crash", "incompatibility", "external", "node_conversion"),
          ("pytorch/pytorch", 2): ("wrong_model", "type_problem", "node", "optimization"),
          ("pytorch/pytorch", 3): ("crash", "shape_problem", "", "node_conversion"),
          ("onnx/tensorflow-onnx", 1): ("crash", "incompatibility", "internal", "load_model"),
          ("onnx/tensorflow-onnx", 2): ("build_failure", "typo", "", "export"),
          ("onnx/tensorflow-onnx", 3): ("wrong_model", "algorithmic_error", "", "node_conversion")}
def issue(repo, n):
    return (f"(SELECT i.id FROM issues i JOIN repositories r ON r.id = i.repo_id "
            f"WHERE r.full_name = '{repo}' AND i.number = {n})")
def ins(repo, n, who, dim, value):
    return ("INSERT INTO manual_labels(issue_id, annotator, dimension, value, source) "
            f"VALUES ({issue(repo, n)}, '{who}', '{dim}', '{value}', 'e2e');\n")
with open(f"{d}/labels.sql", "w") as f:
    for (repo, n), vals in labels.items():
        for dim, v in zip(("symptom", "cause", "subtype", "stage"), vals):
            if v: f.write(ins(repo, n, "ann", dim, v))
    f.write(ins("pytorch/pytorch", 1, "bob", "symptom", "crash"))
    f.write(ins("pytorch/pytorch", 2, "bob", "symptom", "crash"))
    f.write(ins("onnx/tensorflow-onnx", 1, "bob", "symptom", "crash"))
    for repo, n, verdict in (("pytorch/pytorch", 1, "not_runnable"),
                             ("pytorch/pytorch", 1, "crash_reproduced"),
                             ("onnx/tensorflow-onnx", 3, "not_reproduced")):
        f.write(f"INSERT INTO repro_runs(issue_id, verdict) VALUES ({issue(repo, n)}, '{verdict}');\n")
    f.write("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'e2e');\n")
    for k, ((repo, n), vals) in enumerate(labels.items()):
        for dim, v, c in (("symptom", vals[0], 0.9), ("cause", vals[1], 0.5 + k / 20), ("stage", vals[3], 0.7)):
            f.write("INSERT INTO classifier_labels(run_id, issue_id, dimension, label, confidence) "
                    f"VALUES (1, {issue(repo, n)}, '{dim}', '{v}', {c});\n")
PY
cf import "$T/issues.jsonl" >/dev/null
sqlite3 "$DB" <"$T/labels.sql"

# Tidy CSV: every value a number or a plain label.
cf report --source ann --compare bob --format csv >"$T/r.csv"
python3 - "$T/r.csv" <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["table", "row", "column", "value"], rows[0]
number = re.compile(r"^-?\d+(\.\d+)?$")
compound = re.compile(r"\d\s*\(|%|\s/\s|^\[|\]$|\.\.|,")
for r in rows[1:]:
    assert len(r) == 4, r
    v = r[3]
    assert number.match(v) or (v and not compound.search(v)), f"not one value: {r}"
    assert not compound.search(r[1]) or r[0] == "cause_by_symptom", r  # row labels stay plain
vals = {(t, row, col): v for t, row, col, v in rows[1:]}
assert len(vals) == len(rows) - 1, "a (table,row,column) twice"
assert vals[("stage_by_converter", "Node Conversion", "Total")] == "3"
assert vals[("stage_by_converter", "Node Conversion", "Share of total")] == "0.5000"
assert vals[("stage_by_converter", "Node Conversion", "torch.onnx")] == "2"
assert vals[("stage_by_converter", "Total", "Total")] == "6"
assert vals[("cause_by_symptom", "Incompatibility", "Crash (torch.onnx)")] == "1"
assert vals[("cause_by_symptom", "Incompatibility", "Crash (tf2onnx)")] == "1"
assert vals[("cause_by_symptom", "Total", "Total (tf2onnx)")] == "3"
assert vals[("agreement", "Symptom", "Issues")] == "3"
lo, hi = float(vals[("agreement", "Symptom", "95% CI low")]), float(vals[("agreement", "Symptom", "95% CI high")])
assert -1 <= lo <= hi <= 1, (lo, hi)
assert ("agreement", "Symptom", "95% CI") not in vals
print("ok: tidy csv,", len(rows) - 1, "values")
PY

# LaTeX: fragments by default, a document with --standalone; label keys without backslashes.
cf report --source ann --compare bob --format latex >"$T/frag.tex"
cf report --source ann --compare bob --format latex --standalone >"$T/doc.tex"
python3 - "$T" <<'PY'
import re, sys
d = sys.argv[1]
frag, doc = open(f"{d}/frag.tex").read(), open(f"{d}/doc.tex").read()
body = "\n".join(l for l in frag.splitlines() if not l.startswith("%"))  # comments aside
assert r"\documentclass" not in body and r"\begin{document}" not in body and r"\end{document}" not in body
assert r"\usepackage" not in body
for env in ("table", "tabular"):
    assert frag.count(r"\begin{" + env + "}") == frag.count(r"\end{" + env + "}") > 0, env
depth = 0
for m in re.finditer(r"\\(begin|end)\{(\w+)\}", frag):
    depth += 1 if m.group(1) == "begin" else -1
    assert depth >= 0
assert depth == 0
keys = re.findall(r"\\label\{([^}]*)\}", frag)
assert keys and all(re.fullmatch(r"tab:[a-z0-9-]+", k) for k in keys), keys
assert "tab:stage-by-converter" in keys
assert doc.startswith(r"\documentclass") and doc.rstrip().endswith(r"\end{document}")
assert doc.count(r"\begin{tabular}") == frag.count(r"\begin{tabular}")
with open(f"{d}/wrap.tex", "w") as f:
    f.write("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
            "\\input{frag.tex}\nSee Table~\\ref{tab:stage-by-converter}.\n\\end{document}\n")
print("ok: latex fragment")
PY
if command -v pdflatex >/dev/null; then
  (cd "$T" && pdflatex -interaction=nonstopmode -halt-on-error wrap.tex >/dev/null) ||
    fail "pdflatex failed on the wrapped fragment"
  [ -s "$T/wrap.pdf" ] || fail "no PDF"
  echo "ok: pdflatex"
else
  echo "note: pdflatex not installed; fragment checked structurally only"
fi

# Per-issue export, checked against the database.
cf report --per-issue --source ann >"$T/ann.csv"
cf report --per-issue --source ann --format json >"$T/ann.json"
cf report --per-issue --source classifier >"$T/cls.csv"
cf report --per-issue --source hybrid:ann --min-confidence 0.6 --repo pytorch/pytorch >"$T/hyb.csv"
cf labels export --source classifier >"$T/lcls.csv"
cf labels export --source classifier --json >"$T/lcls.json"
expect_exit 2 cf report --per-issue --source ann --format md
expect_grep "per-issue" "$T/err"
python3 - "$T" "$DB" <<'PY'
import csv, json, sqlite3, sys
d, db = sys.argv[1], sqlite3.connect(sys.argv[2])
def key(repo, n): return (repo, int(n))
ids = {key(r, n): i for i, r, n in db.execute(
    "SELECT i.id, r.full_name, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id")}
verdict = dict(db.execute("SELECT issue_id, verdict FROM repro_runs r WHERE id = "
                          "(SELECT max(id) FROM repro_runs r2 WHERE r2.issue_id = r.issue_id)"))
manual = {(i, dim): v for i, dim, v in db.execute(
    "SELECT issue_id, dimension, value FROM current_manual_labels WHERE annotator = 'ann'")}
auto = {(i, dim): (v, c) for i, dim, v, c in db.execute(
    "SELECT issue_id, dimension, label, confidence FROM classifier_labels WHERE run_id = 1")}
dims = ("symptom", "cause", "subtype", "stage")

ann = list(csv.DictReader(open(f"{d}/ann.csv", newline="")))
assert len(ann) == 6 == len({key(r["repo"], r["number"]) for r in ann})
for r in ann:
    i = ids[key(r["repo"], r["number"])]
    assert r["verdict"] == verdict.get(i, ""), (r, verdict.get(i))
    for dim in dims:
        assert r[dim] == (manual.get((i, dim)) or ""), (r, dim)
        assert r[dim + "_origin"] == ("manual" if r[dim] else ""), r
        assert r[dim + "_confidence"] == "", r
assert {r["verdict"] for r in ann} == {"crash_reproduced", "not_reproduced", ""}
j = json.load(open(f"{d}/ann.json"))
assert [(o["repo"], o["number"], o["cause"], o["verdict"]) for o in j] == \
       [(r["repo"], int(r["number"]), r["cause"], r["verdict"] or None) for r in ann]

cls = list(csv.DictReader(open(f"{d}/cls.csv", newline="")))
assert len(cls) == 6
for r in cls:
    i = ids[key(r["repo"], r["number"])]
    for dim in ("symptom", "cause", "stage"):
        v, c = auto[(i, dim)]
        assert r[dim] == v and abs(float(r[dim + "_confidence"]) - c) < 1e-4, (r, dim)
        assert r[dim + "_origin"] == "automatic"

# hybrid: ann's labels are manual; the classifier fills nothing here (ann labeled every cell).
hyb = list(csv.DictReader(open(f"{d}/hyb.csv", newline="")))
assert len(hyb) == 3 and all(r["repo"] == "pytorch/pytorch" for r in hyb)
assert all(r["symptom_origin"] == "manual" for r in hyb)

# labels export --source classifier: the confidence of every label.
lcls = list(csv.DictReader(open(f"{d}/lcls.csv", newline="")))
assert len(lcls) == 6
for r in lcls:
    i = ids[key(r["repo"], r["number"])]
    for dim in ("symptom", "cause", "stage"):
        assert abs(float(r[dim + "_confidence"]) - auto[(i, dim)][1]) < 1e-4, (r, dim)
lj = json.load(open(f"{d}/lcls.json"))
for o in lj:
    i = ids[key(o["repo"], o["number"])]
    assert abs(o["confidence"]["cause"] - auto[(i, "cause")][1]) < 1e-9
print("ok: per-issue and labels export against the database")
PY
echo "ok"
