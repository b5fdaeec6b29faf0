#!/usr/bin/env bash
# `train` and `classify` with a trained model on a synthetic set: one rule (crash on "error" in
# the title) fires on every issue, but half of them are wrong_model, which a word of the body
# ("mismatch") predicts. The trained model must fix the rule's mistake on the held-out fold;
# `--no-model` gives the rules' labels; fold 4 never contributes when --folds 0-3 holds it out;
# training is deterministic; bad gold input gives one-line errors.
# Usage: bash classifier_train.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"

one_rule_set "$T/rules"

python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold, \
     open(t + "/gold_flipped.csv", "w") as flipped:
    for f in (gold, flipped):
        f.write("repo,number,fold,symptom,cause,stage\n")
    for n in range(1, 41):
        odd = n % 2 == 1
        body = ("the converter raised segv boom in the %s pass" if odd else
                "the exported graph gives mismatch values in the %s pass") % ("shape" if odd else "dtype")
        out.write(json.dumps({"repo": "acme/conv", "number": n, "title": "error when converting model %d" % n,
                              "state": "closed", "labels": [], "author": "u%d" % n,
                              "created_at": "2024-01-01", "body": body, "comments": []}) + "\n")
        row = ["acme/conv", str(n), str(n % 5), "crash" if odd else "wrong_model",
               "shape_problem" if odd else "type_problem", "node_conversion" if odd else "optimization"]
        gold.write(",".join(row) + "\n")
        if n % 5 == 4:  # fold 4 rows labeled the other way round
            row[3] = "wrong_model" if odd else "crash"
            row[4] = "type_problem" if odd else "shape_problem"
        flipped.write(",".join(row) + "\n")
PY

cf import "$T/issues.jsonl" >/dev/null

# Bad input: one-line errors, non-zero exits, nothing stored.
expect_exit 2 cf train --rules "$T/rules"
expect_grep "give --gold" "$T/err"
expect_exit 1 cf train --gold nobody --rules "$T/rules"
expect_grep 'annotator "nobody" has no labels' "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "multi-line error: $(cat "$T/err")"
printf 'repo,number,fold,symptom,cause,stage\nacme/conv,1,0,explodes,shape_problem,node_conversion\n' >"$T/bad.csv"
expect_exit 1 cf train --gold-file "$T/bad.csv" --rules "$T/rules"
expect_grep "bad.csv:2" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "multi-line error: $(cat "$T/err")"
printf 'repo,number,symptom,cause,stage\nacme/conv,1,crash,shape_problem,node_conversion\n' >"$T/nofold.csv"
expect_exit 1 cf train --gold-file "$T/nofold.csv" --folds 0-3 --rules "$T/rules"
expect_grep "fold" "$T/err"
printf 'repo,number,fold,symptom,cause,stage\nnobody/else,1,0,crash,shape_problem,node_conversion\n' >"$T/unstored.csv"
expect_exit 1 cf train --gold-file "$T/unstored.csv" --rules "$T/rules"
expect_grep "is stored" "$T/err"
expect_exit 1 cf train --gold-file "$T/gold.csv" --folds 7 --rules "$T/rules"
expect_grep "no gold labels" "$T/err"
expect_exit 2 cf train --gold-file "$T/gold.csv" --rule-scale -1 --rules "$T/rules"
expect_exit 2 cf train --gold-file "$T/gold.csv" --min-doc-freq 0 --rules "$T/rules"
expect_exit 2 cf train --gold-file "$T/gold.csv" --max-features 0 --rules "$T/rules"
models() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from trained_models').fetchone()[0])" "$DB"; }
[ "$(models)" = 0 ] || fail "a failed train stored a model"

# Rules alone: crash everywhere.
cf classify --rules "$T/rules" --json >"$T/rules_run.json"
cf eval --gold-file "$T/gold.csv" --folds 4 --json >"$T/rules_eval.json"

# Train on folds 0-3 twice with gold files that differ only on fold 4: same hash, same model.
cf train --gold-file "$T/gold.csv" --folds 0-3 --rules "$T/rules" --json >"$T/train1.json"
cf train --gold-file "$T/gold_flipped.csv" --folds 0-3 --rules "$T/rules" --json >"$T/train2.json"
cf train --gold-file "$T/gold.csv" --rules "$T/rules" --json >"$T/train_all.json"
cf classify --rules "$T/rules" --json >"$T/model_run.json"
cf eval --gold-file "$T/gold.csv" --folds 4 --json >"$T/model_eval.json"
# Calibrating a model's run on its training folds is in-sample: eval warns (the model trained on all).
cf eval --gold-file "$T/gold.csv" --folds 4 --fit-folds 0-3 >/dev/null 2>"$T/warn"
grep -q "^warning: classifier run .* uses trained model 3, fitted on the --fit-folds issues: this calibration is in-sample" "$T/warn" ||
  fail "no in-sample warning: $(cat "$T/warn")"
cf classify --rules "$T/rules" --no-model --json >"$T/nomodel_run.json"
cf eval --gold-file "$T/gold.csv" --folds 4 --json >"$T/nomodel_eval.json"
cf eval --gold-file "$T/gold.csv" --folds 4 --fit-folds 0-3 >/dev/null 2>"$T/warn"
[ ! -s "$T/warn" ] || fail "warning without a model: $(cat "$T/warn")"

python3 - "$T" "$DB" <<'PY'
import json, sqlite3, sys
t, db = sys.argv[1], sys.argv[2]
load = lambda name: json.load(open("%s/%s" % (t, name)))
t1, t2, ta = load("train1.json"), load("train2.json"), load("train_all.json")
assert t1["issues"] == 32 and t1["folds"] == [0, 1, 2, 3], t1
assert t1["training_hash"] == t2["training_hash"], (t1, t2)
assert ta["issues"] == 40 and ta["training_hash"] != t1["training_hash"], ta
assert t1["dimensions"]["symptom"]["rules_kappa"] == 0, t1  # the rule says crash everywhere
assert t1["dimensions"]["symptom"]["cv_kappa"] == 1, t1
con = sqlite3.connect(db)
rows = con.execute("select id, issues_json, model_json, folds_json from trained_models order by id").fetchall()
assert len(rows) == 3
for mid, issues, model, folds in rows[:2]:
    keys = json.loads(issues)
    assert len(keys) == 32 and json.loads(folds) == [0, 1, 2, 3]
    assert not any(int(k.split("#")[1]) % 5 == 4 for k in keys), keys  # no fold-4 issue
assert rows[0][2] == rows[1][2], "training is not deterministic or fold 4 leaked into the model"

def dims(name):
    return {d: v for d, v in load(name)["dimensions"].items()}
rules, model, nomodel = dims("rules_eval.json"), dims("model_eval.json"), dims("nomodel_eval.json")
assert rules["symptom"]["accuracy"] == 0.5, rules["symptom"]
assert model["symptom"]["accuracy"] == 1.0, model["symptom"]
assert model["cause"]["accuracy"] == 1.0 and model["stage"]["accuracy"] == 1.0, model
assert nomodel == rules, "--no-model differs from the rules alone"
assert load("model_run.json")["model_id"] == 3 and load("nomodel_run.json")["model_id"] == 0

# Evidence: the fired rule stays in classifier_evidence; the model's top features in scores_json.
run = load("model_run.json")["run_id"]
ev = con.execute("select count(*) from classifier_evidence where run_id=? and rule_id='symptom.crash.error_title'", (run,)).fetchone()[0]
assert ev == 40, ev
sj = json.loads(con.execute("select scores_json from classifier_labels l join issues i on i.id=l.issue_id "
                            "where run_id=? and dimension='symptom' and i.number=4", (run,)).fetchone()[0])
assert sj["rules"]["label"] == "crash" and sj["model"]["id"] == 3, sj
feats = [f["feature"] for f in sj["model"]["top_features"]]
assert any("mismatch" in f for f in feats), feats
assert abs(sum(sj["model"]["probabilities"].values()) - 1) < 1e-9
# Confidence: the model's out-of-fold calibration; the run keeps the model's threshold.
m = json.loads(rows[2][2])["dimensions"]
sym = next(d for d in m if d["dimension"] == "symptom")
assert sym["calibration_method"] in ("isotonic", "none"), sym["calibration_method"]
conf = con.execute("select confidence from classifier_labels l join issues i on i.id=l.issue_id "
                   "where run_id=? and dimension='symptom' and i.number=4", (run,)).fetchone()[0]
p = sj["model"]["probability"]
if sym["calibration_method"] == "none":
    assert conf == p, (conf, p)
else:
    blocks = [b for b in sym["calibration"] if b[0] <= p] or sym["calibration"][:1]
    assert abs(conf - blocks[-1][1]) < 1e-9, (conf, p, sym["calibration"])
cal = con.execute("select dimension, threshold, fitted_on from classifier_calibrations where run_id=?", (run,)).fetchall()
assert {c[0] for c in cal} == {"symptom", "cause", "stage"}, cal
assert all(c[2] == "trained model 3 (out-of-fold, cross-fitted)" for c in cal), cal
assert [c[1] for c in cal if c[0] == "symptom"][0] == sym["threshold"], (cal, sym["threshold"])
print("train/classify round trip ok")
PY

# A damaged stored model: a one-line error naming it, no run stored.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"update trained_models set model_json='{\\\"format\\\":1}' where id=3\"); c.commit()" "$DB"
runs() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from classifier_runs').fetchone()[0])" "$DB"; }
before=$(runs)
expect_exit 1 cf classify --rules "$T/rules"
expect_grep "trained model 3: malformed" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "multi-line error: $(cat "$T/err")"
[ "$(runs)" = "$before" ] || fail "a run was stored with a damaged model"
cf classify --rules "$T/rules" --no-model >/dev/null

# Gold from an annotator's manual labels: the same issues and labels hash as the file's.
cf labels import --annotator ann "$T/gold.csv" >/dev/null
cf train --gold ann --rules "$T/rules" --json >"$T/train_ann.json"
python3 - "$T/train_ann.json" "$T/train_all.json" <<'PY'
import json, sys
a, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["issues"] == 40 and a["folds"] == [], a
assert a["training_hash"] == f["training_hash"], (a["training_hash"], f["training_hash"])
PY
expect_exit 1 cf train --gold ann --folds 0-3 --rules "$T/rules"
expect_grep "fold column" "$T/err"
