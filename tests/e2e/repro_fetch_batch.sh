#!/usr/bin/env bash
# One bad archive is that artifact's error, never the batch's: a mixed batch (a good zip, the
# same zip at a second URL, a tar holding a file x and then x/y, a zip entry with a 300-byte
# name, a tar escaping with "..", an archive bomb, a duplicate entry, a 404) is fetched to the
# end: exit 1 after the summary, one stderr line per failed artifact naming its URL and the
# reason, the two identical zips share one blob and one unpacked folder (the first's intact),
# and no temporary file or half-unpacked folder is left.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
server_pid=
on_exit '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null'

mkdir -p "$T/www/mirror"
python3 - "$T/www" <<'PY'
import io, sys, tarfile, zipfile
www = sys.argv[1]
def zip_of(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
def tar_of(path, entries):
    with tarfile.open(path, "w:gz") as t:
        for name, data in entries:
            info = tarfile.TarInfo(name); info.size = len(data)
            t.addfile(info, io.BytesIO(data))
zip_of(www + "/good.zip", [("net/model.onnx", b"abc"), ("net/test_data_set_0/input_0.pb", b"x")])
open(www + "/mirror/good.zip", "wb").write(open(www + "/good.zip", "rb").read())
tar_of(www + "/clash.tar.gz", [("a.txt", b"1"), ("x", b"file"), ("x/y", b"under")])
zip_of(www + "/long.zip", [("n" * 300 + ".onnx", b"m")])
tar_of(www + "/evil.tar.gz", [("ok.txt", b"fine"), ("../escape.txt", b"bad")])
zip_of(www + "/bomb.zip", [("bomb.bin", b"\0" * (64 << 20))])
with zipfile.ZipFile(www + "/twice.zip", "w") as z:
    z.writestr("m.onnx", b"1")
    import warnings; warnings.simplefilter("ignore")
    z.writestr("m.onnx", b"2")
PY
port=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$port" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

base=http://127.0.0.1:$port
python3 - "$T/issues.jsonl" "$base" <<'PY'
import json, sys
b = sys.argv[2]
names = ["good.zip", "clash.tar.gz", "long.zip", "evil.tar.gz", "bomb.zip", "twice.zip",
         "mirror/good.zip", "missing.onnx"]
body = "\n".join("%s/%s" % (b, n) for n in names)
open(sys.argv[1], "w").write(json.dumps({"repo": "acme/conv", "number": 1, "title": "t",
                                         "body": body, "comments": []}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf artifacts scan >/dev/null
[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE kind IN ('model','archive')")" = 8 ]

expect_exit 1 cf artifacts fetch --allow-private-hosts --retries 0 --max-unpacked-bytes 8000000
cat "$T/out" "$T/err"
expect_grep '^fetch: 8 attempted, 2 ok (1 already in the store), 6 failed, 1 unpacked' "$T/out"
expect_grep "^artifact [0-9]* $base/clash.tar.gz: unpack: archive entry x/y: parent x is a file$" "$T/err"
expect_grep "^artifact [0-9]* $base/long.zip: unpack: archive entry n*\.\.\. (305 bytes): entry name too long" "$T/err"
expect_grep "^artifact [0-9]* $base/evil.tar.gz: unpack: archive entry escapes the folder: ../escape.txt$" "$T/err"
expect_grep "^artifact [0-9]* $base/bomb.zip: unpack: unpacked size exceeds 8000000 bytes" "$T/err"
expect_grep "^artifact [0-9]* $base/twice.zip: unpack: archive entry m.onnx: duplicate entry" "$T/err"
expect_grep "^artifact [0-9]* $base/missing.onnx: HTTP 404$" "$T/err"
expect_grep '^convfail: error: 6 of 8 artifacts failed' "$T/err"
grep -q 'internal error\|duplicate entry?' "$T/err" && fail "misleading or batch-level error"
[ "$(grep -c . "$T/err")" = 7 ] || fail "one line per failed artifact and a summary"

st() { sqlite3 "$DB" "SELECT fetch_status || '|' || coalesce(local_path, '') FROM artifacts WHERE url = '$base/$1'"; }
first=$(st good.zip) second=$(st mirror/good.zip)
[ "${first%%|*}" = ok ] && [ "${second%%|*}" = ok ] || fail "both links ok: $first / $second"
[ "${first#*|}" = "${second#*|}" ] || fail "one blob for both links: $first / $second"
[ -f "${first#*|}.d/net/model.onnx" ] || fail "the first artifact's folder was removed"
store=$T/convfail-data/artifacts
[ "$(find "$store" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 1 ] || fail "folders: $(ls "$store")"
[ -z "$(find "$store" -name '*.part-*')" ] || fail "temporary leftovers: $(ls "$store")"
[ ! -e "$T/convfail-data/escape.txt" ] && [ ! -e "$store/escape.txt" ]

# Fetched again (--retry-failed), the good link's folder stays and the failures stay failures.
before=$(find "$store" -type f | sort | md5sum)
expect_exit 1 cf artifacts fetch --allow-private-hosts --retries 0 --retry-failed --json \
  --max-unpacked-bytes 8000000
expect_grep '"attempted":6' "$T/out"
expect_grep '"failed":6' "$T/out"
[ "$(find "$store" -type f | sort | md5sum)" = "$before" ] || fail "the store changed"
echo ok
