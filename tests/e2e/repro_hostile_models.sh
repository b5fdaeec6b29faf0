#!/usr/bin/env bash
# Hostile models for `reproduce --model`, each run as root and again as an unprivileged user
# (uid 65534): a declared input shape of [2^20, 2^20] is not_runnable (--max-elements) at once and
# convfail stays small; external_data locations that leave the model's folder (/etc/passwd,
# /etc/shadow, ../../../../etc/passwd, a symlink to /etc/passwd) are not_runnable and nothing of
# the target reaches stdout, stderr or the database; a truncated model is a one-line verdict.
# A model whose external data stays in its folder still runs (when the ONNX Runtime runner is
# installed). The models are written here by a small protobuf encoder (no onnx module needed).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 missing"
chmod 755 "$T"

# model.py OUT.onnx SHAPE [LOCATION]: y = Add(x, w) with x of SHAPE (comma-separated) and the
# float[1] initializer w, stored as external data at LOCATION when given.
cat >"$T/model.py" <<'PY'
import struct, sys

def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out

def field(num, value):
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(num << 3 | 2) + varint(len(value)) + value

def value_info(name, dims):
    shape = b"".join(field(1, field(1, d)) for d in dims)
    tensor = field(1, 1) + field(2, shape)  # elem_type FLOAT, shape
    return field(1, name) + field(2, field(1, tensor))

out, shape = sys.argv[1], [int(d) for d in sys.argv[2].split(",")]
location = sys.argv[3] if len(sys.argv) > 3 else None
w = field(1, 1) + field(2, 1) + field(8, "w")  # dims [1], FLOAT, name
if location is None:
    w += field(9, struct.pack("<f", 1.0))  # raw_data
else:
    w += field(13, field(1, "location") + field(2, location)) + field(14, 1)  # EXTERNAL
node = field(1, "x") + field(1, "w") + field(2, "y") + field(4, "Add")
graph = (field(1, node) + field(2, "g") + field(5, w) + field(11, value_info("x", shape)) +
         field(12, value_info("y", shape)))
model = field(1, 8) + field(8, field(2, 13)) + field(7, graph)  # ir 8, opset 13
open(out, "wb").write(model)
PY

mk() { python3 "$T/model.py" "$@"; }

# check AS: runs every case as root (AS=root) or as uid 65534 (AS=nobody) with its own database.
check() {
  local as=$1 dir=$T/$1
  mkdir -p "$dir/models/sub" "$dir/db"
  local run=()
  [ "$as" = nobody ] && run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  local db=$dir/db/c.db
  # A secret beside the model's folder: the ../ escape must not reach it either.
  echo "SECRET-BESIDE-THE-MODEL" >"$dir/secret.txt"

  mk "$dir/models/huge.onnx" 1048576,1048576
  mk "$dir/models/passwd.onnx" 1 /etc/passwd
  mk "$dir/models/shadow.onnx" 1 /etc/shadow
  mk "$dir/models/dotdot.onnx" 1 ../../../../etc/passwd
  mk "$dir/models/sub/up.onnx" 1 ../../secret.txt
  ln -s /etc/passwd "$dir/models/link.bin"
  mk "$dir/models/link.onnx" 1 link.bin
  mk "$dir/models/inside.onnx" 1 w.bin
  python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<f", 2.0))' \
    "$dir/models/w.bin"
  mk "$dir/models/good.onnx" 2,3
  head -c 40 "$dir/models/good.onnx" >"$dir/models/cut.onnx"
  chmod -R a+rX "$dir/models"
  [ "$as" = nobody ] && chown -R 65534:65534 "$dir/db"

  # cfr NAME ARGS...: reproduce --model as $as; stdout/stderr in $dir/NAME.{out,err}, exit in rc.
  cfr() {
    local name=$1
    shift
    rc=0
    "${run[@]}" "$BUILD/convfail" --db "$db" --data-dir "$SRC/data" reproduce "$@" \
      >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
  }

  # The huge shape: refused before anything is allocated, under a 2 GB address-space limit.
  local t0 t1
  t0=$(date +%s%N)
  rc=0
  (
    ulimit -v 2097152
    exec "${run[@]}" /usr/bin/time -f 'maxrss_kb=%M' "$BUILD/convfail" --db "$db" \
      --data-dir "$SRC/data" reproduce --model "$dir/models/huge.onnx" --json
  ) >"$dir/huge.out" 2>"$dir/huge.err" || rc=$?
  t1=$(date +%s%N)
  [ "$rc" = 0 ] || fail "$as: huge shape exit $rc: $(head -c 500 "$dir/huge.err")"
  python3 - "$dir/huge.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["verdict"] == "not_runnable", r
assert r["step"] == "inputs", r
assert r["reason"] == ("input 'x' declares shape [1048576,1048576]: more than 268435456 elements"
                       " (--max-elements)"), r
PY
  local rss
  rss=$(sed -n 's/^maxrss_kb=//p' "$dir/huge.err")
  [ -n "$rss" ] && [ "$rss" -lt 262144 ] || fail "$as: convfail RSS ${rss:-?} kB on the huge shape"
  [ $(((t1 - t0) / 1000000)) -lt 10000 ] || fail "$as: huge shape took $(((t1 - t0) / 1000000)) ms"
  echo "$as: huge shape not_runnable in $(((t1 - t0) / 1000000)) ms, convfail max RSS $rss kB"
  # A smaller cap applies to small shapes too; the option is range-checked.
  cfr cap --model "$dir/models/good.onnx" --max-elements 5
  [ "$rc" = 0 ] || fail "$as: --max-elements 5 exit $rc"
  grep -q "not_runnable \[inputs\]  input 'x' declares shape \[2,3\]: more than 5 elements" \
    "$dir/cap.out" || fail "$as: --max-elements 5: $(cat "$dir/cap.out")"
  for bad in 0 -1 1099511627777 x; do
    cfr badcap --model "$dir/models/good.onnx" --max-elements "$bad"
    [ "$rc" = 2 ] || fail "$as: --max-elements $bad exit $rc"
    [ "$(wc -l <"$dir/badcap.err")" -le 2 ] || fail "$as: --max-elements $bad: long error"
  done

  # external_data escapes.
  local m
  for m in passwd shadow dotdot link sub/up; do
    cfr escape --model "$dir/models/$m.onnx" --json
    [ "$rc" = 0 ] || fail "$as: $m exit $rc: $(head -c 300 "$dir/escape.err")"
    python3 - "$dir/escape.out" "$m" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["verdict"] == "not_runnable", (sys.argv[2], r)
assert r["reason"] == "external data outside the model's directory", (sys.argv[2], r)
PY
    cat "$dir/escape.out" "$dir/escape.err" >>"$dir/all_output"
  done
  # Nothing of the targets anywhere: the first line of /etc/passwd, any /etc/shadow entry, the
  # secret beside the model folder.
  local passwd_line
  passwd_line=$(head -n 1 /etc/passwd)
  for f in "$dir/all_output" "$db"; do
    ! grep -aqF "$passwd_line" "$f" || fail "$as: /etc/passwd content in $f"
    ! grep -aqF "SECRET-BESIDE-THE-MODEL" "$f" || fail "$as: the secret in $f"
    ! grep -aqE '^[a-z_][a-z0-9_-]*:[^:]*:[0-9]+:[0-9]*:[0-9]*:' "$f" || fail "$as: a shadow line in $f"
  done
  [ "$(sqlite3 "$db" "SELECT count(*) FROM repro_runs WHERE verdict = 'not_runnable' AND
    reason = 'external data outside the model''s directory'")" = 5 ] || fail "$as: stored rows"
  # Every stored run records the isolation it had.
  [ "$(sqlite3 "$db" "SELECT group_concat(DISTINCT json_extract(details_json, '$.isolation'))
    FROM repro_runs")" = "bwrap+seccomp" ] || fail "$as: stored isolation"

  # A truncated model: one verdict line, exit 0, no crash of convfail.
  cfr cut --model "$dir/models/cut.onnx"
  [ "$rc" = 0 ] || fail "$as: truncated model exit $rc: $(head -c 300 "$dir/cut.err")"
  grep -q "cut.onnx  crash_reproduced \[parse\]" "$dir/cut.out" ||
    fail "$as: truncated model: $(cat "$dir/cut.out")"
  [ ! -s "$dir/cut.err" ] || fail "$as: truncated model wrote to stderr: $(cat "$dir/cut.err")"

  # External data inside the folder is allowed and, with the runner installed, runs.
  cfr inside --model "$dir/models/inside.onnx" --json
  [ "$rc" = 0 ] || fail "$as: inside exit $rc"
  if command -v node >/dev/null && [ -d "$SRC/exec/runner/node_modules/onnxruntime-node" ]; then
    python3 - "$dir/inside.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["verdict"] == "not_reproduced", r
PY
  else
    grep -q "external data outside" "$dir/inside.out" && fail "$as: inside data refused"
  fi
  echo "$as: ok"
}

check root
check nobody
