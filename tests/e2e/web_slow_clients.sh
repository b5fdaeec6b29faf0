#!/usr/bin/env bash
# `convfail serve` under slow clients: with 300 idle connections and 300 that send one header
# line a second open, a probe is answered within 2 s (the server spends no thread per socket);
# a request head still incomplete after --head-timeout is cut.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null || skip "curl/python3 missing"

cf init >/dev/null
start_server
port=${URL##*:}
python3 - "$port" "$URL" >"$T/slow.out" <<'PY'
import resource, socket, subprocess, sys, time
port, url = int(sys.argv[1]), sys.argv[2]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setblocking(False)
    return s

idle = [connect() for _ in range(300)]
trickle = [connect() for _ in range(300)]
for s in trickle:
    s.send(b"GET /api/session HTTP/1.1\r\n")

def probe():
    t = time.monotonic()
    code = subprocess.run(["curl", "-s", "--noproxy", "*", "--max-time", "10", "-o", "/dev/null",
                           "-w", "%{http_code}", url + "/api/session"],
                          capture_output=True, text=True).stdout
    return code, time.monotonic() - t

worst = 0.0
cut = 0
for second in range(14):
    for i, s in enumerate(trickle):
        try:
            s.send(b"X-Slow-%d: %d\r\n" % (second, i))
        except OSError:
            pass
    code, took = probe()
    worst = max(worst, took)
    if code != "200":
        print(f"FAIL probe at {second}s: HTTP {code}")
    time.sleep(max(0.0, 1.0 - took))
# The heads began ~14 s ago: past the 10 s head deadline, the server has cut them.
for s in trickle:
    try:
        s.setblocking(True)
        s.settimeout(0.5)
        if s.recv(1) == b"":
            cut += 1
    except (ConnectionResetError, BrokenPipeError):
        cut += 1
    except OSError:
        pass
print(f"worst_probe_s={worst:.3f} trickle_cut={cut}")
PY
cat "$T/slow.out"
grep -q FAIL "$T/slow.out" && fail "a probe failed: $(cat "$T/slow.out")"
worst=$(sed -n 's/.*worst_probe_s=\([0-9.]*\).*/\1/p' "$T/slow.out")
python3 -c "import sys; sys.exit(0 if float('$worst') < 2.0 else 1)" ||
  fail "a probe took ${worst}s with 600 slow connections open (limit 2 s)"
cut=$(sed -n 's/.*trickle_cut=\([0-9]*\).*/\1/p' "$T/slow.out")
[ "$cut" -ge 290 ] || fail "only $cut of 300 trickling heads were cut after the head deadline"
expect_status 200 GET /api/session
echo "ok"
