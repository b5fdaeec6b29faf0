# Sourced by tests/e2e/web_*.sh after lib.sh: starts `convfail serve` on 127.0.0.1 (a free port
# chosen by the server) under a timeout, stops it at exit.
#   start_server [serve options...]   sets URL (http://127.0.0.1:PORT) and SERVER_PID
#   stop_server
#   http METHOD PATH [curl args...]   prints the status; body in $T/body, headers in $T/headers
#   seed_campaign                      campaign 1 in $DB by SQL (known answers, see below)

SERVER_PID=
start_server() {
  local log=$T/serve.$RANDOM i
  : >"$log.out"
  : >"$log.err"
  timeout 600 "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" serve --host 127.0.0.1 --port 0 \
    "$@" >"$log.out" 2>"$log.err" &
  SERVER_PID=$!
  on_exit "kill $SERVER_PID 2>/dev/null; { wait $SERVER_PID; } 2>/dev/null"
  URL=
  for i in $(seq 1 100); do
    URL=$(sed -n 's|^convfail serve: listening on \(http://127.0.0.1:[0-9]*\)/.*|\1|p' "$log.out" || true)
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || fail "serve exited: $(cat "$log.err")"
    sleep 0.1
  done
  [ -n "$URL" ] || fail "serve did not start: $(cat "$log.err")"
  SERVER_OUT=$log.out
}

stop_server() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
}

http() {
  local method=$1 path=$2
  shift 2
  curl -s --noproxy '*' --max-time 30 -X "$method" -o "$T/body" -D "$T/headers" \
    -w '%{http_code}' "$@" "$URL$path"
}

# expect_status CODE METHOD PATH [curl args...]: the status must be CODE; an error status must
# come with a one-line JSON body {"error": ...}.
expect_status() {
  local code=$1 got
  shift
  got=$(http "$@") || fail "curl failed: $*"
  [ "$got" = "$code" ] || fail "$*: expected HTTP $code, got $got: $(head -c 300 "$T/body")"
  if [ "$code" -ge 400 ]; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d["error"], str) and d["error"]' \
      "$T/body" || fail "$*: $code without a JSON error: $(head -c 300 "$T/body")"
    grep -qi '^content-type: application/json' "$T/headers" || fail "$*: error not served as JSON"
  fi
}

# jq-like check with Python: json_check 'expression over d' (the last response body).
json_check() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert ($1), d" "$T/body" ||
    fail "json check failed: $1: $(head -c 500 "$T/body")"
}

# Campaign 1 written by SQL (known answers): 4 synthetic mismatches holding Erf > Mul, 4 successes
# without, one failure group (minimised to Erf > Mul) and its bisect: regressed in 1.15.0, fixed
# in 1.21.0.
seed_campaign() {
  python3 - "$T/campaign.sql" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
out.write("INSERT INTO campaigns(id, config_json, versions_json, finished_at) VALUES (1, '{\"seed\":3}', "
          "'{\"torch\":\"1.13.1\",\"onnxruntime\":\"1.20.1\"}', '2026-01-02T00:00:00Z');\n")
for seq in range(8):
    bad = seq < 4
    ops = ["Conv", "Relu"] + (["Erf", "Mul"] if bad else []) + ["Add"]
    g = json.dumps({"ops": ops, "edges": [[i, i + 1] for i in range(len(ops) - 1)]})
    out.write("INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome, operators_json, "
              f"graph_json) VALUES (1, {seq}, 'synthetic', 'synthetic-{seq}', {10 + seq % 2}, "
              f"'{'mismatch' if bad else 'success'}', '{json.dumps(ops)}', '{g}');\n")
out.write("INSERT INTO campaign_groups(id, campaign_id, outcome, signature, size, representative_seq, "
          "original_nodes, minimised_nodes, minimised_graph_json, candidates_json, labels_json) VALUES "
          "(1, 1, 'mismatch', 'outputs differ <erf>', 4, 0, 10, 2, "
          "'{\"ops\":[\"Erf\",\"Mul\"],\"edges\":[[0,1]]}', '[]', NULL);\n")
out.write("INSERT INTO bisects(model_sha256, model_path, issue_id, campaign_group_id, from_version, "
          "to_version, first_bad, regressed_in, fixed_in, newest_known, still_failing, new_runs, "
          "stored_runs, result_json) VALUES ('aa', '/s/g1/model.onnx', NULL, 1, '1.14.0', '1.22.0', "
          "'1.15.0', '1.15.0', '1.21.0', '1.22.0', 0, 5, 0, '{}');\n")
PY
  sqlite3 "$DB" <"$T/campaign.sql"
}
