#!/usr/bin/env bash
# convfail test: every outcome class produced on purpose by a model built to trigger it, a worker
# crash as one model's outcome (the campaign goes on), a group matched to the stored issue that
# reports it, and a bundle.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
D=$SRC/tests/data/campaign

cf import "$D/issue_fft.json" >/dev/null
cf test run --source "script:$D/ok.py" --source "script:$D/fft.py" \
  --source "script:$D/custom_op.py" --source "script:$D/nan.py" --source "script:$D/crash.py" \
  --source "script:$D/ok.py" --jobs 1 --inputs 2 --json >"$T/run.json" 2>"$T/run.err" ||
  fail "run: $(tail -5 "$T/run.err")"
outcome() { sqlite3 "$DB" "SELECT outcome || '|' || COALESCE(signature, '') FROM campaign_models WHERE campaign_id = $1 AND seq = $2"; }
[ "$(outcome 1 0)" = "success|" ] || fail "ok.py: $(outcome 1 0)"
case $(outcome 1 1) in conversion_failure*aten::fft_fft*) ;; *) fail "fft.py: $(outcome 1 1)" ;; esac
case $(outcome 1 2) in ort_failure*) ;; *) fail "custom_op.py: $(outcome 1 2)" ;; esac
case $(outcome 1 3) in invalid*nan*) ;; *) fail "nan.py: $(outcome 1 3)" ;; esac
[ "$(outcome 1 4)" = "conversion_failure|torch worker signal sigsegv in export" ] ||
  fail "crash.py: $(outcome 1 4)"
# After the crash a fresh worker ran the next model.
[ "$(outcome 1 5)" = "success|" ] || fail "ok.py after the crash: $(outcome 1 5)"
jq -e '.finished == true and .outcomes.success == 2 and .outcomes.conversion_failure == 2
  and .outcomes.ort_failure == 1 and .outcomes.invalid == 1' "$T/run.json" >/dev/null ||
  fail "summary: $(cat "$T/run.json")"
# Every exported model's graph: ops and edges over its node indices.
sqlite3 "$DB" "SELECT graph_json FROM campaign_models WHERE seq = 0" | jq -e '.ops | length > 0' \
  >/dev/null || fail "no graph_json"

# A mismatch on purpose: the exported model made wrong (+1 on its first output).
cf test run --source "script:$D/ok.py" --perturb-export --jobs 1 --inputs 1 --json >"$T/mm.json" 2>/dev/null
jq -e '.outcomes.mismatch == 1 and .mismatch_modes.both == 1' "$T/mm.json" >/dev/null ||
  fail "perturbed: $(cat "$T/mm.json")"
# Its signature names the kind of difference (+1 on a float output: a large one).
c=$(jq .campaign "$T/mm.json")
case $(sqlite3 "$DB" "SELECT signature FROM campaign_models WHERE campaign_id = $c") in
  "mismatch both: large float difference, "*) ;;
  *) fail "mismatch kind: $(sqlite3 "$DB" "SELECT signature FROM campaign_models WHERE campaign_id = $c")" ;;
esac

# A hang in export: after --timeout, not_run (our limit: no verdict on the model or converter).
cf test run --source "script:$D/hang.py" --timeout 3 --jobs 1 --inputs 1 --json >"$T/hang.json" 2>/dev/null
jq -e '.outcomes.not_run == 1 and .outcomes.invalid == 0 and .outcomes.conversion_failure == 0 and
  .groups == 0 and (.not_run_reasons[0].reason | startswith("torch worker timeout in "))' "$T/hang.json" >/dev/null ||
  fail "hang: $(cat "$T/hang.json")"

# Dict outputs in insertion order (torch.onnx's output order): float and int64 values compare.
cf test run --source "script:$D/dict_out.py" --jobs 1 --inputs 1 --json >"$T/dict.json" 2>/dev/null
jq -e '.outcomes.success == 1' "$T/dict.json" >/dev/null || fail "dict outputs: $(cat "$T/dict.json")"

# Out of memory in export under --memory-mb: not_run (our limit), the message names the limit.
cf test run --source "script:$D/oom.py" --memory-mb 2048 --jobs 1 --inputs 1 --json >"$T/oom.json" 2>/dev/null
jq -e '.outcomes.not_run == 1 and .outcomes.invalid == 0 and .outcomes.conversion_failure == 0' \
  "$T/oom.json" >/dev/null ||
  fail "oom: $(cat "$T/oom.json")"
c=$(jq .campaign "$T/oom.json")
case $(sqlite3 "$DB" "SELECT message FROM campaign_models WHERE campaign_id = $c") in
  "out of memory under --memory-mb 2048 in export"*) ;;
  *) fail "oom message: $(sqlite3 "$DB" "SELECT message FROM campaign_models WHERE campaign_id = $c")" ;;
esac

# Groups: the fft failure lists the stored issue that reports it first.
cf test groups --campaign 1 --json >"$T/groups.json"
jq -e '[.[] | select(.signature | contains("fft_fft"))][0].candidates[0].issue == "pytorch/pytorch#90001"' \
  "$T/groups.json" >/dev/null || fail "fft group: $(cat "$T/groups.json")"
jq -e '[.[] | select(.outcome == "ort_failure")] | length == 1' "$T/groups.json" >/dev/null ||
  fail "ort group: $(cat "$T/groups.json")"
cf test status --campaign 1 >"$T/status.txt"
expect_grep "conversion_failure *2" "$T/status.txt"

# A bundle of the ort_failure group: model, inputs, eager outputs, info.
g=$(jq '[.[] | select(.outcome == "ort_failure")][0].id' "$T/groups.json")
cf test bundle "$g" "$T/bundle" >/dev/null
for f in model.onnx info.json inputs/input_0.pb expected/output_0.pb; do
  [ -s "$T/bundle/$f" ] || fail "bundle lacks $f: $(ls -R "$T/bundle")"
done
jq -e '.outcome == "ort_failure" and (.versions.torch | length > 0)' "$T/bundle/info.json" >/dev/null ||
  fail "info.json: $(cat "$T/bundle/info.json")"
jq -e '.onnxruntime.verdict == "crash_reproduced" and (.onnxruntime.version | length > 0)' \
  "$T/bundle/info.json" >/dev/null || fail "ort_failure bundle's run: $(cat "$T/bundle/info.json")"
[ ! -e "$T/bundle/onnxruntime_optimised" ] || fail "a crashed run left outputs"
expect_exit 1 cf test bundle 9999 "$T/b2"

# A bundle of the mismatch group holds both outputs: torch's (expected/) and ONNX Runtime's,
# unoptimised and optimised, each a TensorProto that loads; ONNX Runtime's are torch's + 1.
g=$(cf test groups --campaign 2 --json | jq '[.[] | select(.outcome == "mismatch")][0].id')
cf test bundle "$g" "$T/mm" >/dev/null
/usr/bin/python3 - "$T/mm" <<'PY' || fail "mismatch bundle: $(ls -R "$T/mm"; cat "$T/mm/info.json")"
import json, sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
load = lambda f: numpy_helper.to_array(onnx.load_tensor(f"{d}/{f}"))
torch_out = load("expected/output_0.pb")
info = json.load(open(f"{d}/info.json"))
assert info["onnxruntime"]["verdict"] == "wrong_output_reproduced", info["onnxruntime"]
assert "onnxruntime_optimised/output_0.pb" in info["files"], info["files"]
for level in ("unoptimised", "optimised"):
    ort_out = load(f"onnxruntime_{level}/output_0.pb")
    assert ort_out.shape == torch_out.shape and ort_out.dtype == torch_out.dtype, level
    assert not np.allclose(ort_out, torch_out), level
    assert np.allclose(ort_out, torch_out + 1, atol=1e-5), (level, ort_out - torch_out)
PY
echo ok
