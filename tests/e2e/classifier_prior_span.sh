#!/usr/bin/env bash
# A prior (a rule whose pattern is "\S": it fires on any text) is evidence of no text in
# particular (#28 item 12): its stored evidence has an empty span and no matched text, so neither
# `explain` (">>t<<orch") nor the annotation header ("[[t]]orch") marks the title's first letter,
# while a real rule's match in the title is still marked.
# Usage: bash classifier_prior_span.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
echo '{"repo": "pytorch/pytorch", "number": 7, "state": "closed", "title": "torch.onnx.export crashes with Segmentation fault", "body": "Segmentation fault (core dumped) when exporting"}' >"$T/one.jsonl"
cf import "$T/one.jsonl" >/dev/null
cf classify >/dev/null
# The shipped rules have priors on the title; their rows have no span.
priors=$(sqlite3 "$DB" "SELECT count(*) FROM classifier_evidence WHERE field = 'title' AND span_start = span_end AND matched_text = ''")
[ "$priors" -ge 1 ] || fail "no prior evidence without a span: $(sqlite3 "$DB" "SELECT rule_id, span_start, span_end, matched_text FROM classifier_evidence WHERE field = 'title'")"
one=$(sqlite3 "$DB" "SELECT count(*) FROM classifier_evidence WHERE span_end - span_start = 1")
[ "$one" = 0 ] || fail "$one evidence rows of one character"
cf explain pytorch/pytorch#7 >"$T/explain.txt"
grep -q '>>t<<' "$T/explain.txt" && fail "explain marks the first letter: $(grep -m1 '>>t<<' "$T/explain.txt")"
expect_grep "a prior: fires on any text" "$T/explain.txt"
expect_grep ">>Segmentation fault<<" "$T/explain.txt"
printf 'q\n' | cf annotate --annotator p --plain >"$T/annotate.txt" 2>/dev/null
grep -q '\[\[t\]\]orch' "$T/annotate.txt" && fail "the header marks the first letter: $(grep -m1 'orch' "$T/annotate.txt")"
grep 'pytorch/pytorch#7' "$T/annotate.txt" | grep -q 'with \[\[Segmentation fault\]\]' ||
  fail "the title's real evidence is not marked: $(grep -m1 'orch' "$T/annotate.txt")"
echo "ok: priors carry no span; the title's real evidence is still marked"
