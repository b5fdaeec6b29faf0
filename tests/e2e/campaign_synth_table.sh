#!/usr/bin/env bash
# The synthetic generator's type table (synth.SUPPORT) is true of torch 1.13 eager on CPU: every
# (operator, type) pair it claims runs eagerly (one node on fresh inputs, each of the builder's
# variants) and gives the type synth.out_type says; an integer result has a range rule (RANGE)
# and stays in it; every cast synth.cast_code allows runs and keeps its value's range. Pairs
# eager accepts that the table omits are listed (not a failure).
# Usage: bash campaign_synth_table.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "python3-torch not installed"
/usr/bin/python3 - "$SRC/campaign/harness" <<'PY' || fail "the type table is not true of eager"
import sys
import warnings

sys.path.insert(0, sys.argv[1])
warnings.filterwarnings("ignore")
import torch  # noqa: E402
import synth  # noqa: E402

torch.set_num_threads(1)
VARIANTS = 6
bad, omitted = [], []


def values(spec):
    """Every value of the spec's program (inputs and node outputs), eagerly, by id."""
    program = synth.render(spec)
    ids = [i["id"] for i in spec["inputs"]] + [n["out"] for n in spec["body"]]
    lines = program.split("\n")
    f = lines.index(next(line for line in lines if line.startswith("    def forward(")))
    k = next(i for i in range(f, len(lines)) if lines[i].startswith("        return "))
    lines[k] = "        return (%s,)" % ", ".join("v%d" % i for i in ids)
    ns = {}
    exec(compile("\n".join(lines), "program.py", "exec"), ns)
    with torch.no_grad():
        return dict(zip(ids, ns["make_model"]()(*ns["make_inputs"](0))))


def check_node(spec, what):
    """Problems of the spec's last node: eager refusal, another type, a value out of range."""
    try:
        vals = values(spec)
    except Exception as e:
        return "%s: eager refuses: %s" % (what, str(e).splitlines()[0][:200])
    n = spec["body"][-1]
    y = vals[n["out"]]
    if str(y.dtype) != "torch." + n["dtype"]:
        return "%s: eager gives %s, the spec says %s" % (what, y.dtype, n["dtype"])
    if list(y.shape) != n["shape"]:
        return "%s: eager shape %s, the spec says %s" % (what, list(y.shape), n["shape"])
    if "range" in n and y.numel():
        lo, hi = int(y.min()), int(y.max())
        if lo < n["range"][0] or hi > n["range"][1]:
            return "%s: values [%d, %d] outside the range %s" % (what, lo, hi, n["range"])
    return None


claimed = refused = 0
unbuilt = []
for name in sorted(synth.OPS):
    generic = synth.T in synth.OPS[name][0]
    if name == "cast":
        continue
    for t in synth.ALL_DTYPES if generic else [synth.BOOL]:  # no T input: its fixed types
        claims = not generic or t in synth.SUPPORT[name]
        claimed += claims
        refused += not claims
        problem, dtypes = None, set()
        for v in range(VARIANTS):
            spec = synth.single(name, t, v, strict=False)
            if spec is None:
                continue
            dtypes.add(spec["body"][-1]["dtype"])
            problem = check_node(spec, "%s %s variant %d" % (name, t, v))
            if problem:
                break
        if not claims:
            if not problem:
                omitted.append("%s %s" % (name, t))
            continue
        if problem:
            bad.append(problem)
        if dtypes - set(synth.FLOATS) - {synth.BOOL} and name not in synth.RANGE \
                and name not in ("argmax", "argmin"):
            bad.append("%s %s: an integer result without a range rule" % (name, t))
        # The generator's own nodes (range rules may refuse the fresh inputs: listed).
        built = 0
        for v in range(VARIANTS):
            spec = synth.single(name, t, v)
            built += spec is not None
            p = spec and check_node(spec, "%s %s strict variant %d" % (name, t, v))
            if p:
                bad.append(p)
                break
        if not built:
            unbuilt.append("%s %s" % (name, t))

# Every cast the generator may insert, from inputs of each domain.
casts = 0
for src in synth.ALL_DTYPES:
    for dom in (synth.ANY, synth.UNIT, synth.POS):
        for dst in synth.ALL_DTYPES:
            spec = synth.single_cast(src, dom, dst)
            if spec is not None:
                casts += 1
                p = check_node(spec, "cast %s (%s) -> %s" % (src, dom, dst))
                if p:
                    bad.append(p)

print("table: %d operator/type pairs claimed, %d refused; %d casts checked"
      % (claimed, refused, casts))
print("claimed, but the range rules refuse it on fresh inputs: %s" % ", ".join(unbuilt))
for o in omitted:
    print("eager accepts, the table omits: %s" % o)
for b in bad:
    print("FAIL: %s" % b)
sys.exit(1 if bad or claimed < 500 else 0)
PY
echo ok
