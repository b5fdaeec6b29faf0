#!/usr/bin/env bash
# The synthetic generator over NNSmith's nine types (--dtypes all): 300 programs run eagerly in
# torch without an error, every value has the type and shape its spec says and an integer value
# stays in its range (no overflow); all nine types occur among the programs' values; the same
# seed gives the same spec and program (also in another process with another hash seed); an
# unknown type is refused by name.
# Usage: bash campaign_synth_dtypes.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "python3-torch not installed"
HARNESS=$SRC/campaign/harness

# digest SEEDS: one hash of the specs and programs of seeds 0..SEEDS-1.
digest() {
  /usr/bin/python3 - "$HARNESS" "$1" <<'PY'
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import synth
h = hashlib.sha256()
for seed in range(int(sys.argv[2])):
    spec = synth.generate(seed, 5 + seed % 26, dtypes=("all",))
    h.update(json.dumps(spec, sort_keys=True).encode() + synth.render(spec).encode())
print(h.hexdigest())
PY
}
a=$(PYTHONHASHSEED=1 digest 300) && b=$(PYTHONHASHSEED=2 digest 300) || fail "generate"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the same seeds gave other specs in another process: $a $b"
echo "ok   300 seeds give the same specs and programs in two processes"

/usr/bin/python3 - "$HARNESS" <<'PY' || fail "the all-type programs"
import collections
import json
import random
import sys
import warnings

sys.path.insert(0, sys.argv[1])
warnings.filterwarnings("ignore")
import torch  # noqa: E402
import synth  # noqa: E402

torch.set_num_threads(1)
bad = []


def run_checked(spec, what):
    """Runs the spec's program eagerly, returning every value (its forward returns them all)
    with its spec entry; a problem (eager error, type, shape, range) goes to bad."""
    lines = synth.render(spec).split("\n")
    f = lines.index(next(line for line in lines if line.startswith("    def forward(")))
    k = next(i for i in range(f, len(lines)) if lines[i].startswith("        return "))
    entries = spec["inputs"] + [dict(n, id=n["out"]) for n in spec["body"]]
    lines[k] = "        return (%s,)" % ", ".join("v%d" % e["id"] for e in entries)
    try:
        ns = {}
        exec(compile("\n".join(lines), "program.py", "exec"), ns)
        with torch.no_grad():
            out = ns["make_model"]()(*ns["make_inputs"](0))
    except Exception as e:
        bad.append("%s: eager: %s" % (what, str(e).splitlines()[0][:300]))
        return []
    for e, y in zip(entries, out):
        at = "%s v%d (%s)" % (what, e["id"], e.get("op", "input"))
        if str(y.dtype) != "torch." + e["dtype"] or list(y.shape) != e["shape"]:
            bad.append("%s: eager %s %s, spec %s %s"
                       % (at, y.dtype, list(y.shape), e["dtype"], e["shape"]))
        elif "range" in e and y.numel() and (int(y.min()) < e["range"][0]
                                             or int(y.max()) > e["range"][1]):
            bad.append("%s: values [%d, %d] outside %s"
                       % (at, int(y.min()), int(y.max()), e["range"]))
    return entries


nodes_by_type, values_by_type, casts = collections.Counter(), collections.Counter(), 0
for seed in range(300):
    nodes = 5 + seed % 26
    spec = synth.generate(seed, nodes, dtypes=("all",))
    again = synth.generate(seed, nodes, dtypes=("all",))
    if json.dumps(spec) != json.dumps(again) or synth.render(spec) != synth.render(again):
        bad.append("seed %d: two specs" % seed)
    if len(spec["body"]) != nodes:
        bad.append("seed %d: %d nodes, asked %d" % (seed, len(spec["body"]), nodes))
    for e in run_checked(spec, "seed %d" % seed):
        values_by_type[e["dtype"]] += 1
        if "op" in e:
            nodes_by_type[e["dtype"]] += 1
            casts += e["op"] == "cast"
    # A cut spec (the minimiser's) runs too: its new inputs keep the dropped values' ranges.
    if seed % 3 == 0:
        keep = random.Random(seed).sample(range(nodes), nodes // 2)
        run_checked(synth.restrict(spec, keep), "seed %d cut to %s" % (seed, sorted(keep)))
total = sum(nodes_by_type.values())
shares = ", ".join("%s %.1f%%" % (t, 100.0 * nodes_by_type[t] / total) for t in synth.ALL_DTYPES)
print("nodes by type: %s; casts %d of %d" % (shares, casts, total))
missing = [t for t in synth.ALL_DTYPES if not values_by_type[t]]
if missing:
    bad.append("types no program holds: %s" % missing)
# The default (float32) computes in float32: every operator's T inputs are float32.
for seed in range(20):
    spec = synth.generate(seed, 30)
    dtype = {i["id"]: i["dtype"] for i in spec["inputs"]}
    dtype.update((n["out"], n["dtype"]) for n in spec["body"])
    for n in spec["body"]:
        types = [dtype[a] for a, t in zip(n["args"], synth.OPS[n["op"]][0]) if t == synth.T]
        if any(t != "float32" for t in types):
            bad.append("float32 alone: seed %d %s on %s" % (seed, n["op"], types))
try:
    synth.generate(1, 5, dtypes=("float32", "float128"))
    bad.append("an unknown type was accepted")
except ValueError as e:
    if "float128" not in str(e):
        bad.append("the refusal does not name the type: %s" % e)
for b in bad[:20]:
    print("FAIL: %s" % b)
sys.exit(1 if bad else 0)
PY
echo ok
