#!/usr/bin/env bash
# A model with external data (issue #44 item 4): the worker exports to a file, as a user does, so a
# model over 2 GiB is written with its weights in files beside model.onnx. A small perceptron
# saved that way (--external-data-export, every initializer in its own file) goes through the
# checker and ONNX Runtime (by path: success needs the weights), the content-addressed store (the
# data files kept beside model.onnx, and part of the hash: two seeds' exports, which share one
# model.onnx, are two models), a bundle (the data files carried, ONNX Runtime run on it) and
# `bisect --group` (run where the store keeps it, the data files part of its identity). The
# perturb hook (+1 on the first output) still works on a model written to a file.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
chmod 755 "$T"
export TMPDIR=$T
W=$SRC/tests/data/campaign/weights.py
store=$T/convfail-data/models
q() { sqlite3 "$DB" "$1"; }
DATA="0.bias 0.weight 2.bias 2.weight"

# Two seeds: the same small model.onnx (only names and offsets), other weights.
for seed in 1 2; do
  cf test run --source "script:$W" --external-data-export --seed $seed --inputs 2 --jobs 1 \
    --json >"$T/run$seed.json" 2>"$T/run$seed.err" || fail "run $seed: $(tail -3 "$T/run$seed.err")"
  jq -e '.outcomes.success == 1' "$T/run$seed.json" >/dev/null ||
    fail "seed $seed: $(q "SELECT outcome, message FROM campaign_models")"
done
sha1=$(q "SELECT model_sha256 FROM campaign_models WHERE campaign_id = 1")
sha2=$(q "SELECT model_sha256 FROM campaign_models WHERE campaign_id = 2")
cmp -s "$store/$sha1/model.onnx" "$store/$sha2/model.onnx" ||
  fail "the two exports' model.onnx differ: the hash test below proves nothing"
[ "$sha1" != "$sha2" ] || fail "two models with other weights share one store entry $sha1"
for d in $DATA; do
  [ -f "$store/$sha1/$d" ] || fail "the store lost the external data file $d: $(ls "$store/$sha1")"
done
cmp -s "$store/$sha1/0.weight" "$store/$sha2/0.weight" && fail "the seeds' weights are the same"
[ "$(sha256sum <"$store/$sha1/model.onnx" | cut -c1-64)" != "$sha1" ] ||
  fail "the store's hash is model.onnx's alone"
# The model file really keeps no weights: without its data files the checker refuses it.
mkdir "$T/bare" && cp "$store/$sha1/model.onnx" "$T/bare/" && chmod -R a+rX "$T/bare"
expect_exit 0 cf reproduce --model "$T/bare/model.onnx" --json
jq -e '.results[0] | .verdict == "crash_reproduced" and .step == "checker"' "$T/out" >/dev/null ||
  fail "a model without its data files: $(head -c 600 "$T/out")"
expect_grep "doesn't exist" "$T/out"
echo "ok   checker, ONNX Runtime and the store with external data; two seeds, two entries"

# A mismatch on purpose (+1 on the output): its group's bundle carries the data files and runs.
cf test run --source "script:$W" --external-data-export --perturb-export --inputs 2 --jobs 1 \
  --json >"$T/run3.json" 2>"$T/run3.err" || fail "perturbed run: $(tail -3 "$T/run3.err")"
g=$(q "SELECT id FROM campaign_groups WHERE outcome = 'mismatch'")
[ -n "$g" ] || fail "no mismatch group: $(q "SELECT outcome, message FROM campaign_models")"
expect_exit 0 cf test bundle "$g" "$T/bundle"
for d in model.onnx $DATA; do
  [ -f "$T/bundle/$d" ] || fail "the bundle has no $d: $(ls "$T/bundle")"
  jq -e --arg f "$d" '.files | index($f)' "$T/bundle/info.json" >/dev/null || fail "info.json files lack $d"
done
jq -e '.onnxruntime.verdict == "wrong_output_reproduced" and
  (.onnxruntime.max_abs_error - 1 | fabs) < 1e-3' "$T/bundle/info.json" >/dev/null ||
  fail "the bundle's ONNX Runtime run: $(jq -c .onnxruntime "$T/bundle/info.json")"
[ -f "$T/bundle/onnxruntime_unoptimised/output_0.pb" ] || fail "no ONNX Runtime outputs in the bundle"
echo "ok   bundle: model.onnx with its $(echo $DATA | wc -w) data files, ONNX Runtime off by exactly the +1"

# bisect --group: the releases come from BUILD/ort-cache (installed by repro_bisect.sh, or here).
export CONVFAIL_ORT_CACHE=$BUILD/ort-cache
for v in 1.20.1 1.31.1; do
  [ -d "$CONVFAIL_ORT_CACHE/$v" ] || cf runtimes install "$v" >/dev/null 2>&1 ||
    { echo "skip bisect: onnxruntime-node $v not installable offline"; exit 0; }
done
gsha=$(q "SELECT m.model_sha256 FROM campaign_models m JOIN campaign_groups g ON
  g.campaign_id = m.campaign_id AND g.representative_seq = m.seq WHERE g.id = $g")
expect_exit 0 cf bisect --group "$g" --releases 1.20.1,1.31.1 --json
jq -e --arg s "$gsha" '.bisects[0] | .sha256 == $s and .still_failing and
  ([.tried[].verdict] | unique == ["wrong_output_reproduced"])' "$T/out" >/dev/null ||
  fail "bisect --group: $(head -c 1200 "$T/out")"
# Without a data file the group's model is another model: run again, and it no longer loads.
rm "$store/$gsha/2.weight"
expect_exit 0 cf bisect --group "$g" --releases 1.20.1,1.31.1 --json
jq -e '.bisects[0] | .new_runs > 0 and ([.tried[].verdict] | index("wrong_output_reproduced") | not)' \
  "$T/out" >/dev/null || fail "bisect without a data file: $(head -c 1200 "$T/out")"
echo "ok   bisect --group runs the model with its external data where the store keeps it"
