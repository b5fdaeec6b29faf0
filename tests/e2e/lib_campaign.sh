# Sourced by tests/e2e/campaign_*.sh after lib.sh: skips when torch or onnxruntime-node is
# missing; `cfdb DB ARGS...` runs convfail on another database.
/usr/bin/python3 -c 'import torch, onnx' 2>/dev/null || skip "python3-torch or python3-onnx not installed"
[ -d "$BUILD/share/convfail/runner/node_modules/onnxruntime-node" ] ||
  skip "onnxruntime-node not installed (scripts/install-deps.sh)"
cfdb() {
  local db=$1
  shift
  "$BUILD/convfail" --db "$db" --data-dir "$SRC/data" "$@"
}
# rows DB: the campaign's model rows, the result a rerun must reproduce.
rows() {
  sqlite3 "$1" "SELECT seq, name, nodes, model_sha256, outcome, mismatch_mode, signature,
    operators_json, graph_json FROM campaign_models ORDER BY campaign_id, seq"
}
