#!/usr/bin/env bash
# Real architectures beyond vision (issue #44 item 3): --source torchaudio, text and real, each
# narrowed by :NAME[,...]. Unknown names are refused in one line before anything runs; one
# torchaudio architecture (wav2letter) and two text ones (BERT-Tiny, a transformer encoder with an
# attention mask; a one-layer LSTM language model) run to an outcome with random weights and no
# network (the worker is sandboxed without one), each row with its source and family, its model
# and input sets in the store, and the torchaudio release among the campaign's versions.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
/usr/bin/python3 -c 'import torchaudio' 2>/dev/null || skip "python3-torchaudio not installed"
chmod 755 "$T"

# Unknown names (of the source's own libraries) are refused before anything runs, in one line.
for bad in torchaudio:wav2letter,nosuch text:resnet18 real:nosuch; do
  rc=0
  cf test run --source "$bad" --inputs 1 >"$T/bad.out" 2>"$T/bad.err" || rc=$?
  [ "$rc" = 1 ] || fail "$bad: exit $rc, expected 1 ($(cat "$T/bad.err"))"
  [ "$(wc -l <"$T/bad.err")" = 1 ] || fail "$bad: not one line: $(cat "$T/bad.err")"
  name=${bad##*[:,]}
  expect_grep "no ${bad%%:*} architecture '$name'" "$T/bad.err"
done
rc=0
cf test run --source "text:bert_tiny,a b" >/dev/null 2>"$T/syntax.err" || rc=$?
[ "$rc" = 2 ] || fail "a name that is not one: exit $rc, expected 2"
expect_grep "expected architecture names" "$T/syntax.err"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models")" = 0 ] || fail "a refused run stored models"

start=$SECONDS
cf test run --source torchaudio:wav2letter --source text:bert_tiny,lstm_lm_1l --inputs 2 \
  --jobs 2 --no-minimise --json >"$T/run.json" 2>"$T/run.err" || fail "run: $(tail -3 "$T/run.err")"
seconds=$((SECONDS - start))
jq -e '.finished == true and .models == 3' "$T/run.json" >/dev/null ||
  fail "not 3 models finished: $(head -c 800 "$T/run.json")"
jq -e '.versions.torchaudio | startswith("0.")' "$T/run.json" >/dev/null ||
  fail "no torchaudio version: $(jq -c .versions "$T/run.json")"
q() { sqlite3 "$DB" "$1"; }
got=$(q "SELECT group_concat(source || ' ' || name, ', ') FROM (SELECT * FROM campaign_models ORDER BY seq)")
[ "$got" = "torchaudio torchaudio:wav2letter, text text:bert_tiny, text text:lstm_lm_1l" ] ||
  fail "rows: $got"
# The family, where the store has its column (schema 0019): audio and text.
if q "SELECT family FROM campaign_models LIMIT 1" >/dev/null 2>&1; then
  fam=$(q "SELECT group_concat(family, ' ') FROM (SELECT family FROM campaign_models ORDER BY seq)")
  [ "$fam" = "audio text text" ] || fail "families: $fam"
fi
out() { q "SELECT outcome FROM campaign_models WHERE name = '$1'"; }
msg() { q "SELECT COALESCE(message, '') FROM campaign_models WHERE name = '$1'"; }
# wav2letter (convolutions over a 1 s waveform) converts and agrees with torch.
[ "$(out torchaudio:wav2letter)" = success ] ||
  fail "wav2letter: $(out torchaudio:wav2letter) $(msg torchaudio:wav2letter)"
# BERT-Tiny: torch 1.13's eager fast path (nested tensors, eval under no_grad) drops the padded
# quarter of the sequence; the traced export keeps it: a shape mismatch, 96 against 128 tokens.
[ "$(out text:bert_tiny)" = mismatch ] || fail "bert_tiny: $(out text:bert_tiny) $(msg text:bert_tiny)"
case $(msg text:bert_tiny) in *"[1,128,128] vs expected [1,96,128]"*) ;;
  *) fail "bert_tiny message: $(msg text:bert_tiny)" ;;
esac
# The LSTM language model exports; its outcome is ONNX Runtime's (success, or float differences
# at the tolerance's edge), never a failure before ONNX Runtime ran.
case $(out text:lstm_lm_1l) in success | mismatch) ;;
  *) fail "lstm_lm_1l: $(out text:lstm_lm_1l) $(msg text:lstm_lm_1l)" ;;
esac
# Every model is in the store with its input sets and torch's outputs.
store=$T/convfail-data/models
for sha in $(q "SELECT model_sha256 FROM campaign_models"); do
  for f in model.onnx set_0/input_0.pb set_0/output_0.pb set_1/output_0.pb; do
    [ -f "$store/$sha/$f" ] || fail "$sha: no $f"
  done
done
[ "$(q "SELECT count(model_sha256) FROM campaign_models")" = 3 ] || fail "a model was not stored"
cf test report --format md >"$T/report.md" || fail "report"
expect_grep "torchaudio" "$T/report.md"
for n in torchaudio:wav2letter text:bert_tiny text:lstm_lm_1l; do
  printf '%s %s %s s; ' "$n" "$(out "$n")" "$(q "SELECT printf('%.1f', json_extract(durations_json, '$.worker') + COALESCE(json_extract(durations_json, '$.ort'), 0)) FROM campaign_models WHERE name = '$n'")"
done
echo
echo "ok: 3 architectures in $seconds s"
