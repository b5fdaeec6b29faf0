#!/usr/bin/env bash
# `convfail serve`'s campaign comparison (curl on 127.0.0.1): GET /api/campaigns/A/compare/B in
# every format is what `convfail test compare A B` prints; campaign 2 (by SQL) fixes campaign 1's
# Erf mismatches but adds a conversion failure, so the JSON has a fixed and a new group and the
# transitions; refusals as JSON 4xx; the database unchanged. The page links it from a campaign.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

cf init >/dev/null
seed_campaign
# Campaign 2: the same 8 models on another release; seq 0-3 now succeed, seq 7 fails to export.
sqlite3 "$DB" <<'SQL'
UPDATE campaign_models SET signature = 'outputs differ <erf>', group_id = 1
  WHERE campaign_id = 1 AND outcome = 'mismatch';
INSERT INTO campaigns(id, config_json, versions_json, finished_at) VALUES (2,
  '{"seed":3,"ort":"1.22.0"}', '{"torch":"1.13.1","onnxruntime":"1.22.0"}', '2026-01-03T00:00:00Z');
INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome, signature)
  SELECT 2, seq, source, name, nodes, CASE WHEN seq = 7 THEN 'conversion_failure' ELSE 'success' END,
  CASE WHEN seq = 7 THEN 'unsupported aten::erfinv' END FROM campaign_models WHERE campaign_id = 1;
INSERT INTO campaign_groups(id, campaign_id, outcome, signature, size, representative_seq)
  VALUES (2, 2, 'conversion_failure', 'unsupported aten::erfinv', 1, 7);
SQL
before=$(counts)
start_server

for f in md csv latex json html; do
  expect_status 200 GET "/api/campaigns/1/compare/2?format=$f"
  cf test compare 1 2 --format "$f" --out "$T/cli.$f" 2>/dev/null
  diff "$T/body" "$T/cli.$f" >&2 || fail "GET /api/campaigns/1/compare/2?format=$f differs from test compare"
done
expect_status 200 GET "/api/campaigns/1/compare/2?format=json"
json_check 'd["new_groups"] == 1 and d["fixed_groups"] == 1 and d["still_failing_groups"] == 0'
json_check '{(t["from"], t["to"]): t["models"] for t in d["transitions"]} == {("mismatch", "success"): 4, ("success", "success"): 3, ("success", "conversion_failure"): 1}'
json_check '[x["setting"] for x in d["differences"]] == ["ort", "onnxruntime version"]'
json_check '[g["signature"] for g in d["groups"] if g["status"] == "new"] == ["unsupported aten::erfinv"]'
json_check '[g["other_side"] for g in d["groups"] if g["status"] == "fixed"] == [{"success": 4}]'
expect_status 200 GET "/api/campaigns/1/compare/2"
grep -qi '^content-type: text/html' "$T/headers" || fail "the default format is not html"
grep -qi "^content-security-policy: default-src 'none'" "$T/headers" || fail "compare html without the report CSP"
expect_grep 'new in B' "$T/body"
expect_status 200 GET "/api/campaigns/1/compare/2?format=csv&download=1"
grep -qi '^content-disposition: attachment; filename="convfail-campaign-1-vs-2.csv"' "$T/headers" ||
  fail "comparison download name: $(grep -i disposition "$T/headers")"
# The page offers the comparison on a campaign's view.
expect_status 200 GET /assets/app.js
expect_grep "/compare/" "$T/body"

# Refusals.
expect_status 404 GET /api/campaigns/1/compare/9
expect_status 400 GET /api/campaigns/1/compare/x
expect_status 400 GET "/api/campaigns/1/compare/2?format=pdf"
expect_status 404 GET "/api/campaigns/1/compare/2/compare/1"  # no route has this path

stop_server
[ "$(counts)" = "$before" ] || fail "the database changed"
echo "ok"
