#!/usr/bin/env bash
# `convfail serve`'s campaign pages and the ONNX Runtime history column (curl on 127.0.0.1): the
# campaign list (GET /api/campaigns) and a campaign's report in every format (the one
# `convfail report --campaign` prints, defects with "fixed in / regressed in / still failing" from
# the stored bisects); an issue's JSON with its repro runs folded to one row per program and its
# bisected model's history; refusals as JSON 4xx; the database unchanged.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

printf '%s\n' '{"repo":"acme/conv","number":1,"title":"Synthetic Erf mismatch","body":"wrong output","state":"open"}' \
  >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null
seed_campaign
# Two runs of one model and one script run of the issue, and a bisect of that model.
sqlite3 "$DB" <<'SQL'
INSERT INTO bisects(model_sha256, model_path, issue_id, campaign_group_id, from_version, to_version,
  first_bad, regressed_in, fixed_in, newest_known, still_failing, new_runs, stored_runs, result_json)
  VALUES ('bb', '/s/blobs/bb/model.onnx', 1, NULL, '1.14.0', '1.22.0', '1.14.0', NULL, NULL, '1.22.0',
  1, 3, 0, '{}');
INSERT INTO repro_runs(issue_id, model_path, verdict, step, signature, started_at, script_source) VALUES
  (1, '/s/blobs/bb/model.onnx', 'not_reproduced', NULL, NULL, '2026-01-01T10:00:00Z', NULL),
  (1, '/s/blobs/bb/model.onnx', 'crash_reproduced', 'session', 'x', '2026-01-03T10:00:00Z', NULL),
  (1, NULL, 'not_runnable', 'export', NULL, '2026-01-02T10:00:00Z', 'body');
SQL
before=$(counts)
start_server

expect_status 200 GET /api/campaigns
json_check 'len(d["campaigns"]) == 1 and d["campaigns"][0]["id"] == 1'
json_check 'd["campaigns"][0]["models"] == 8 and d["campaigns"][0]["groups"] == 1'
json_check 'd["campaigns"][0]["outcomes"]["mismatch"] == 4 and d["campaigns"][0]["finished"]'

# The report: the same text `report --campaign` prints, in every format.
for f in md csv latex json html; do
  expect_status 200 GET "/api/campaigns/1?format=$f"
  cf report --campaign 1 --format "$f" --out "$T/cli.$f" 2>/dev/null
  cmp -s "$T/body" "$T/cli.$f" || fail "GET /api/campaigns/1?format=$f differs from report --campaign"
done
grep -qi "^content-security-policy: default-src 'none'" "$T/headers" || fail "campaign html without the report CSP"
expect_grep 'Defects found' "$T/body"
expect_grep 'regressed in 1.15.0, fixed in 1.21.0' "$T/body"
expect_status 200 GET "/api/campaigns/1?format=json"
json_check 'd["groups"][0]["runtime"] == "regressed in 1.15.0, fixed in 1.21.0"'
expect_status 200 GET "/api/campaigns/1"
grep -qi '^content-type: text/html' "$T/headers" || fail "the default format is not html"
# A download is named by its campaign (not one convfail-campaign.md for every campaign).
expect_status 200 GET "/api/campaigns/1?format=md&download=1"
grep -qi '^content-disposition: attachment; filename="convfail-campaign-1.md"' "$T/headers" ||
  fail "campaign download name: $(grep -i disposition "$T/headers")"

# Refusals.
expect_status 404 GET /api/campaigns/9
expect_status 400 GET /api/campaigns/x1
expect_status 400 GET "/api/campaigns/1?format=pdf"
expect_status 405 POST /api/campaigns -H 'Content-Type: application/json' -d '{}'

# The issue: one row per program (its latest verdict, the run count, the latest date) and the
# ONNX Runtime history of its bisected model; the GitHub link built from the reference.
expect_status 200 GET /api/issues/acme/conv/1
json_check 'len(d["repro_programs"]) == 2'
json_check '[(p["name"], p["runs"], p["latest"]["verdict"], p["latest_at"]) for p in d["repro_programs"]] == [("model.onnx", 2, "crash_reproduced", "2026-01-03T10:00:00Z"), ("script", 1, "not_runnable", "2026-01-02T10:00:00Z")]'
json_check 'd["runtime_history"][0]["model"] == "model.onnx"'
json_check 'd["runtime_history"][0]["summary"] == "still failing in 1.22.0 (since 1.14.0 or before)"'
json_check 'd["github_url"] == "https://github.com/acme/conv/issues/1"'
json_check 'd["body_html"] == "<p>wrong output</p>\n"'

stop_server
[ "$(counts)" = "$before" ] || fail "the database changed"
echo "ok"
