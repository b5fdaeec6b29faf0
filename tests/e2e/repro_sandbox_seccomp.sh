#!/usr/bin/env bash
# The sandbox's seccomp filter, checked from inside: one repro script (run by `reproduce
# --scripts`, so as a stranger's script would be: bwrap, uid 65534, no capabilities, seccomp)
# makes every system call of the table below with arguments that would fail harmlessly (EBADF,
# EFAULT, EINVAL) or succeed if the call reached the kernel, and reports the errno each gave.
# Each must give the errno in the table: refused calls EPERM, ENOSYS or EAFNOSUPPORT, and the
# harmless neighbours of each refused call ("reach" rows) must still reach the kernel, so the
# filter is not wider than meant. In the manner of Flatpak's tests/test-seccomp.sh.
# Run once with convfail as root and once as uid 65534.
# Usage: bash repro_sandbox_seccomp.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ "$(uname -m)" = x86_64 ] || skip "system call numbers below are x86_64's"
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"
[ "$(id -u)" = 0 ] || skip "needs root (runs convfail as root and as uid 65534)"
command -v setpriv >/dev/null || skip "setpriv missing"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"

# The table: name, expected result ("ok" = the call succeeded, else the errno's name), and the
# call (Python, `sc` = raw syscall with 64-bit arguments). x86_64 numbers.
cat >"$T/table.py" <<'PYEOF'
TABLE = [
    # io_uring and clone3: as if absent, so callers fall back
    ("io_uring_setup",            "ENOSYS",       "sc(425, 1, params())"),
    ("io_uring_enter",            "ENOSYS",       "sc(426, -1, 0, 0, 0, 0, 0)"),
    ("io_uring_register",         "ENOSYS",       "sc(427, -1, 0, 0, 0)"),
    ("clone3",                    "ENOSYS",       "sc(435, 0, 0)"),
    # clone with any CLONE_NEW* flag; plain clone (fork) still works
    ("clone(CLONE_NEWUSER)",      "EPERM",        "fork_with(0x10000000)"),
    ("clone(CLONE_NEWNS)",        "EPERM",        "fork_with(0x00020000)"),
    ("clone(CLONE_NEWPID)",       "EPERM",        "fork_with(0x20000000)"),
    ("clone(CLONE_NEWNET)",       "EPERM",        "fork_with(0x40000000)"),
    ("clone(CLONE_NEWUTS)",       "EPERM",        "fork_with(0x04000000)"),
    ("clone(CLONE_NEWIPC)",       "EPERM",        "fork_with(0x08000000)"),
    ("clone(CLONE_NEWCGROUP)",    "EPERM",        "fork_with(0x02000000)"),
    ("clone(NEWUSER|NEWNS)",      "EPERM",        "fork_with(0x10020000)"),
    ("reach clone(SIGCHLD)",      "ok",           "fork_with(0)"),
    # modify_ldt
    ("modify_ldt(read)",          "EPERM",        "sc(154, 0, buf(16), 16)"),
    # personality: only PER_LINUX and the query
    ("personality(READ_IMPLIES_EXEC)", "EPERM",   "persona(0x0400000)"),
    ("personality(ADDR_NO_RANDOMIZE)", "EPERM",   "persona(0x0040000)"),
    ("personality(PER_LINUX32)",  "EPERM",        "persona(0x0008)"),
    ("personality(0xfffffffe)",   "EPERM",        "persona(0xfffffffe)"),
    ("personality(1<<32|READ_IMPLIES_EXEC)", "EPERM", "persona(0x100400000)"),
    ("reach personality(query)",  "ok",           "persona(0xffffffff)"),
    ("reach personality(PER_LINUX)", "ok",        "persona(0)"),
    # socket: AF_UNIX, AF_INET, AF_INET6, AF_NETLINK only
    ("socket(AF_VSOCK)",          "EAFNOSUPPORT", "sock(40, 1)"),
    ("socket(AF_PACKET)",         "EAFNOSUPPORT", "sock(17, 3)"),
    ("socket(AF_ALG)",            "EAFNOSUPPORT", "sock(38, 5)"),
    ("socket(AF_BLUETOOTH)",      "EAFNOSUPPORT", "sock(31, 3)"),
    ("socket(AF_KEY)",            "EAFNOSUPPORT", "sock(15, 3)"),
    ("socket(AF_APPLETALK)",      "EAFNOSUPPORT", "sock(5, 2)"),
    ("socket(AF_UNSPEC)",         "EAFNOSUPPORT", "sock(0, 1)"),
    ("socket(1<<32|AF_VSOCK)",    "EAFNOSUPPORT", "sock((1 << 32) | 40, 1)"),
    ("reach socket(AF_UNIX)",     "ok",           "sock(1, 1)"),
    ("reach socket(AF_INET)",     "ok",           "sock(2, 1)"),
    ("reach socket(AF_INET6)",    "ok",           "sock(10, 1)"),
    ("reach socket(AF_NETLINK)",  "ok",           "sock(16, 3)"),
    # NUMA memory policy and page migration
    ("move_pages",                "EPERM",        "sc(279, 0, 0, 0, 0, 0, 0)"),
    ("mbind",                     "EPERM",        "sc(237, 0, 0, 0, 0, 0, 0)"),
    ("get_mempolicy",             "EPERM",        "sc(239, 0, 0, 0, 0, 0)"),
    ("set_mempolicy",             "EPERM",        "sc(238, 0, 0, 0)"),
    ("migrate_pages",             "EPERM",        "sc(256, 0, 0, 0, 0)"),
    # terminal injection; other ioctls reach the kernel (EBADF on fd -1)
    ("ioctl(TIOCSTI)",            "EPERM",        "sc(16, -1, 0x5412, buf(1))"),
    ("ioctl(1<<32|TIOCSTI)",      "EPERM",        "sc(16, -1, (1 << 32) | 0x5412, buf(1))"),
    ("ioctl(TIOCLINUX)",          "EPERM",        "sc(16, -1, 0x541C, buf(1))"),
    ("ioctl(1<<32|TIOCLINUX)",    "EPERM",        "sc(16, -1, (1 << 32) | 0x541C, buf(1))"),
    ("reach ioctl(TIOCNOTTY)",    "EBADF",        "sc(16, -1, 0x5422, 0)"),
    ("reach ioctl(FIONREAD)",     "EBADF",        "sc(16, -1, 0x541B, buf(4))"),
    # refused before this table existed (regressions)
    ("mount",                     "EPERM",        "sc(165, 0, 0, 0, 0, 0)"),
    ("unshare(CLONE_NEWUSER)",    "EPERM",        "sc(272, 0x10000000)"),
    ("setns",                     "EPERM",        "sc(308, -1, 0)"),
    ("ptrace",                    "EPERM",        "sc(101, 16, 1, 0, 0)"),
    ("bpf",                       "EPERM",        "sc(321, 0, 0, 0)"),
    # benign neighbours
    ("reach chmod(NULL)",         "EFAULT",       "sc(90, 0, 0)"),
    ("reach listen(-1)",          "EBADF",        "sc(50, -1, 0)"),
    ("reach prctl(PR_GET_NAME)",  "ok",           "sc(157, 16, buf(16), 0, 0, 0)"),
]
PYEOF

# The probe: the table's calls, each result as NAME=RESULT, reported through the exception the
# harness stores (details_json.exception.message). No torch needed before the export line.
$PY - "$T/table.py" "$T/issues.jsonl" <<'PYEOF'
import json, sys
table_src = open(sys.argv[1]).read()
probe = table_src + r'''
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(nr, *args):
    rc = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a if a < 2**63 else a - 2**64)
                                            for a in args])
    return rc, ctypes.get_errno()
_keep = []
def buf(n):
    b = ctypes.create_string_buffer(n)
    _keep.append(b)
    return ctypes.addressof(b)
def params():
    return buf(120)  # struct io_uring_params, zeroed
def fork_with(flags):
    rc, e = sc(56, flags | 17, 0, 0, 0, 0)  # clone(flags | SIGCHLD, no new stack)
    if rc == 0:
        libc._exit(0)  # the child, if the kernel made one
    if rc > 0:
        os.waitpid(rc, 0)
    return rc, e
def persona(value):
    rc, e = sc(135, value)
    if rc != -1 and value != 0xffffffff:
        sc(135, 0)  # undo a change that went through
    return rc, e
def sock(family, kind):
    rc, e = sc(41, family, kind, 0)
    return rc, e
out = []
for name, _, call in TABLE:
    rc, e = eval(call)
    if rc == -1:
        result = errno.errorcode.get(e, str(e))
    else:
        result = "ok"
        if call.startswith(("sock(", "sc(425")):
            os.close(rc)
    out.append("%s=%s" % (name, result))
raise RuntimeError("REPORT " + ";".join(out) + ";END")
'''
probe += "torch.onnx.export(torch.nn.Linear(1, 1), torch.zeros(1, 1), 'm.onnx')\n"
with open(sys.argv[2], "w") as f:
    f.write(json.dumps({"repo": "probe/seccomp", "number": 1, "title": "seccomp table",
                        "author": "mallory", "body": "```python\n" + probe + "```\n",
                        "comments": []}) + "\n")
PYEOF

fail=0
# run_as MODE DIR: imports the probe into DIR/db and runs it as root or as uid 65534.
run_as() {
  local mode=$1 dir=$2
  mkdir -p "$dir/tmp"
  cp "$T/issues.jsonl" "$dir/issues.jsonl"
  local run=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir" TMPDIR="$dir/tmp"
             "$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data")
  if [ "$mode" = nobody ]; then
    chown -R 65534:65534 "$dir"
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups "${run[@]}")
  fi
  "${run[@]}" import "$dir/issues.jsonl" >"$dir/import.out" 2>&1 ||
    { echo "FAIL import ($mode)"; cat "$dir/import.out"; return 1; }
  "${run[@]}" reproduce --scripts --all --script-timeout 120 >"$dir/out" 2>"$dir/err"
  sqlite3 "$dir/db" "SELECT details_json FROM repro_runs" >"$dir/details.json"
}

# check MODE DIR: the table, as a list of call, got, expected.
check() {
  local mode=$1 dir=$2
  $PY - "$T/table.py" "$dir/details.json" "$mode" <<'PYEOF' || fail=1
import json, sys
exec(open(sys.argv[1]).read())
mode = sys.argv[3]
raw = open(sys.argv[2]).read().strip()
d = json.loads(raw) if raw else {}
msg = d.get("exception", {}).get("message", "")
if d.get("isolation") != "bwrap+seccomp" or not (msg.startswith("REPORT ") and msg.endswith(";END")):
    print("FAIL (%s): the probe did not report from inside the sandbox: %s" % (mode, raw[:1500]))
    sys.exit(1)
got = dict(kv.split("=", 1) for kv in msg[7:-4].split(";"))
bad = 0
print("%-40s %-14s %-14s (%s)" % ("call", "got", "expected", mode))
for name, want, _ in TABLE:
    ok = got.get(name) == want
    bad += not ok
    print("%-40s %-14s %-14s %s" % (name, got.get(name, "-"), want, "ok" if ok else "FAIL"))
print("%d of %d calls as expected (%s)" % (len(TABLE) - bad, len(TABLE), mode))
sys.exit(1 if bad else 0)
PYEOF
}

run_and_check() { run_as "$1" "$2" && check "$1" "$2"; }
root_then_nobody run_and_check || fail=1
exit $fail
