#!/usr/bin/env bash
# `convfail serve` under concurrent GETs of a heavy page (curl on 127.0.0.1, bounded): two
# campaigns of N failure groups each (by SQL), then 40 concurrent GETs of their comparison with
# --threads 2 while /api/session is asked. Every request is answered 200 with the whole page (a
# complete request queued behind busy workers is never cut by the head deadline, which is for
# slow clients), the page is made once per database state (a write to
# the campaign makes it again), and /api/session is answered meanwhile within 2 s (one worker
# is kept for light requests).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

NGROUPS=${CONVFAIL_LOAD_GROUPS:-12000}
cf init >/dev/null
sqlite3 "$DB" <<SQL
INSERT INTO campaigns(id, config_json, versions_json, finished_at) VALUES
  (1, '{"seed":3}', '{"onnxruntime":"1.20.1"}', '2026-01-02T00:00:00Z'),
  (2, '{"seed":3}', '{"onnxruntime":"1.22.0"}', '2026-01-03T00:00:00Z');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $NGROUPS)
INSERT INTO campaign_groups(campaign_id, outcome, signature, size, representative_seq)
  SELECT c, 'mismatch', 'outputs differ <op' || (i + c) || '>', 1, i FROM n, (SELECT 1 AS c UNION ALL SELECT 2);
INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome, signature, group_id)
  SELECT campaign_id, representative_seq, 'synthetic', 'synthetic-' || representative_seq, 10,
         outcome, signature, id FROM campaign_groups;
SQL
start_server --threads 2
SERVER_ERR=${SERVER_OUT%.out}.err

N=40
start=$(date +%s.%N)
pids=()
for i in $(seq 1 $N); do
  curl -s --noproxy '*' --max-time 120 -o "$T/page$i" -w '%{http_code} %{size_download}\n' \
    "$URL/api/campaigns/1/compare/2?format=json" >"$T/status$i" 2>/dev/null &
  pids+=($!)
done
sleep 0.5
session_ms=$(curl -s --noproxy '*' --max-time 120 -o /dev/null -w '%{http_code} %{time_total}' "$URL/api/session" || true)
for pid in "${pids[@]}"; do wait "$pid" || true; done
elapsed=$(python3 -c "import time,sys; print(round(time.time() - float(sys.argv[1]), 2))" "$start")
ok=0
for i in $(seq 1 $N); do
  read -r code size <"$T/status$i" || true
  [ "${code:-000}" = 200 ] && cmp -s "$T/page$i" "$T/page1" && ok=$((ok + 1))
done
echo "answered $ok of $N in ${elapsed}s; /api/session: $session_ms" >&2
[ "$ok" = "$N" ] || fail "$((N - ok)) of $N concurrent GETs of the comparison were not answered whole"
# Campaign 1 has signatures <op1>..<opN>, campaign 2 <op2>..<opN+1>: the comparison has one
# entry per signature of either side.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=int(sys.argv[2]) + 1; assert len(d["groups"]) == n, (len(d["groups"]), n)' "$T/page1" "$NGROUPS" ||
  fail "the comparison is not JSON with one entry per group"
[ "${session_ms%% *}" = 200 ] || fail "/api/session: $session_ms"
# A worker is kept for light requests: the session does not queue behind the heavy pages.
python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 2.0)' "${session_ms#* }" ||
  fail "/api/session waited ${session_ms#* } s behind the heavy pages"

# A change to the database makes the page again: campaign 2 gets one more group.
sqlite3 "$DB" "INSERT INTO campaign_groups(campaign_id, outcome, signature, size, representative_seq)
  VALUES (2, 'conversion_failure', 'unsupported aten::erfinv', 1, 99999)"
expect_status 200 GET "/api/campaigns/1/compare/2?format=json"
expect_grep 'unsupported aten::erfinv' "$T/body"
stop_server
echo "ok"
