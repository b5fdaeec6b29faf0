#!/usr/bin/env bash
# `eval --simulate-annotation` on a synthetic set whose labels follow key words (three per label,
# one per issue, so a few labels teach only some of them): JSON shape and its agreement with the
# text, the curve rising from its first batch to a high final kappa that both orders end on, the
# default pool (folds 0-3) never reading fold 4, --eval-folds holding one fold out, and option
# errors.
# Usage: bash classifier_simulate.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"

python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
# Made-up key words: no rule fires on them, the model learns them from the labels alone.
sym = {"crash": ["zorblat", "quimmox", "frandle"], "wrong_model": ["plovik", "snarvel", "tworpin"]}
stage = {"node_conversion": ["vantrel", "hobnick", "sprindle"], "optimization": ["mospick", "trevvan", "clumbor"]}
cause = {"shape_problem": ["glimmek", "brastov", "yondrel"], "type_problem": ["wuzzick", "kelvrom", "drapnix"]}
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold, \
     open(t + "/scrambled.csv", "w") as scrambled:
    for f in (gold, scrambled):
        f.write("repo,number,fold,symptom,cause,stage\n")
    for n in range(1, 101):
        s = ["crash", "wrong_model"][n % 2]
        c = ["shape_problem", "type_problem"][(n // 2) % 2]
        st = ["node_conversion", "optimization"][(n // 4) % 2]
        body = "the converter %s in the %s step of %s" % (
            sym[s][(n * 7) % 3], cause[c][(n * 5) % 3], stage[st][(n * 11) % 3])
        out.write(json.dumps({"repo": "acme/conv", "number": n, "title": "converting model %d" % n,
                              "state": "closed", "labels": [], "author": "u%d" % n,
                              "created_at": "2024-01-01", "body": body, "comments": []}) + "\n")
        row = ["acme/conv", str(n), str(n % 5), s, c, st]
        gold.write(",".join(row) + "\n")
        if n % 5 == 4:
            row[3:6] = ["hang", "typo", "export"]
        scrambled.write(",".join(row) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null

# Option errors: one line, exit 2, nothing run.
expect_exit 2 cf eval --simulate-annotation --gold-file "$T/gold.csv" --folds 0-3 --eval-folds 3
expect_grep "fold 3 is both in the pool and held out" "$T/err"
expect_exit 2 cf eval --simulate-annotation --gold-file "$T/gold.csv" --batch 0
expect_exit 2 cf eval --simulate-annotation --gold-file "$T/gold.csv" --seeds 0
expect_exit 2 cf eval --simulate-annotation --gold-file "$T/gold.csv" --uncertainty variance
expect_exit 2 cf eval --simulate-annotation --gold-file "$T/gold.csv" --fit-folds 0-3
expect_grep "takes none of" "$T/err"
printf 'repo,number,symptom,cause,stage\nacme/conv,1,crash,shape_problem,node_conversion\n' >"$T/nofold.csv"
expect_exit 1 cf eval --simulate-annotation --gold-file "$T/nofold.csv" --folds 0-3
expect_grep "fold column" "$T/err"
cf eval --help >"$T/help"
grep -q -- "--eval-folds" "$T/help" && grep -q "cross-validation" "$T/help" || fail "--help does not explain held-out folds"

args=(eval --simulate-annotation --gold-file "$T/gold.csv" --batch 10 --seeds 3)
cf "${args[@]}" --json >"$T/sim.json"
cf "${args[@]}" >"$T/sim.txt"
cf eval --simulate-annotation --gold-file "$T/scrambled.csv" --batch 10 --seeds 3 --json >"$T/scrambled.json"
cf "${args[@]}" --folds 0-3 --eval-folds 4 --json >"$T/held4.json"

python3 - "$T" <<'PY'
import json, re, sys
t = sys.argv[1]
r = json.load(open(t + "/sim.json"))
text = open(t + "/sim.txt").read()
assert r["pool_folds"] == [0, 1, 2, 3] and r["eval_folds"] == [] and r["splits"] == 4, r
assert r["batch"] == 10 and r["seeds"] == 3 and r["uncertainty"] == "margin"
assert r["pool"] == 60 and r["held_out"] == 80, (r["pool"], r["held_out"])
assert [p["labels"] for p in r["curve"]] == list(range(10, 61, 10)), r["curve"]
assert "each pool fold in turn (4 splits)" in text and "mean of 3 seed(s)" in text, text
for dim in ("symptom", "cause", "stage"):
    d = r["dimensions"][dim]
    first, last = r["curve"][0], r["curve"][-1]
    assert abs(last["uncertain"][dim] - d["final_kappa"]) < 1e-9, dim
    assert abs(last["random"][dim] - d["final_kappa"]) < 1e-9, dim
    assert d["final_kappa"] > 0.9, (dim, d)
    assert first["random"][dim] < d["final_kappa"], (dim, first)
    for order in ("uncertain", "random"):
        labels = d[order + "_labels"]
        assert labels in [p["labels"] for p in r["curve"]], (dim, order, labels)
        reached = next(p["labels"] for p in r["curve"] if p[order][dim] >= d["final_kappa"] - 1e-9)
        assert labels == reached, (dim, order)
    m = re.search(r"^%s: final kappa (\S+) \(all 60 labels\); reached by uncertain order at (\d+) labels, "
                  r"by random order at (\d+)$" % dim, text, re.M)
    assert m, (dim, text)
    assert m.group(1) == "%.3f" % d["final_kappa"] and int(m.group(2)) == d["uncertain_labels"]
    assert int(m.group(3)) == d["random_labels"]
# Fold 4 is not in the default simulation: its labels do not change a figure.
s = json.load(open(t + "/scrambled.json"))
assert s["curve"] == r["curve"] and s["dimensions"] == r["dimensions"]
# Held out fold 4 explicitly: one split, its 20 issues.
h = json.load(open(t + "/held4.json"))
assert h["splits"] == 1 and h["eval_folds"] == [4] and h["held_out"] == 20 and h["pool"] == 80, h
print("simulation:", {d: (v["uncertain_labels"], v["random_labels"]) for d, v in r["dimensions"].items()})
PY
