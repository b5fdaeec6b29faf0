# Sourced by tests/e2e/web_*.sh after lib.sh: starts `convfail serve` on 127.0.0.1 (a free port
# chosen by the server) under a timeout, stops it at exit.
#   start_server [serve options...]   sets URL (http://127.0.0.1:PORT) and SERVER_PID
#   stop_server
#   http METHOD PATH [curl args...]   prints the status; body in $T/body, headers in $T/headers

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
