"""convfail's synthetic model generator: a random DAG of exactly N PyTorch operators, valid by
construction, rendered as a short Python program (class Model, make_inputs).

A model is a *spec* (plain JSON): graph inputs (shape, dtype, domain) and nodes, each one operator
of OPS applied to earlier values, with its output's shape, dtype and domain computed forward. An
operator that cannot fit the values at hand is redrawn. The same seed gives the same spec, the
same program text and (torch.onnx.export being deterministic) the same ONNX bytes.

Domains keep inputs safe: "unit" values lie in [-1, 1], "pos" values in (0, +inf) (graph inputs
in [0.5, 1.5]); an operator with a restricted domain (log, sqrt, div, asin, ...) only takes
values of that domain, or a fresh graph input drawn in it.

A spec can be cut to a subset of its nodes (`restrict`): values a kept node reads whose producer
was dropped become graph inputs of the same shape, dtype and domain (delta debugging over the
operator graph).
"""

import random

F32, I64, BOOL = "float32", "int64", "bool"
ANY, UNIT, POS = "any", "unit", "pos"


class Val:
    __slots__ = ("id", "shape", "dtype", "dom")

    def __init__(self, vid, shape, dtype, dom):
        self.id, self.shape, self.dtype, self.dom = vid, tuple(shape), dtype, dom


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def bcast(a, b):
    """The broadcast shape of a and b, or None."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


# ---------------------------------------------------------------- the operator table
# Each entry: name -> (input dtypes, input domain needed per input, builder). A builder gets
# (rng, shapes) and returns (out_shape, out_dtype, out_domain, code, params) or None, where code
# is a format string over {a}, {b}, {c} (input names) and {p0}, {p1} (parameter names), and
# params a list of (shape, kind) with kind in "w" (weights in [-s, s]), "pos", "idx:<hi>".

OPS = {}


def op(name, dtypes, doms=None):
    def reg(fn):
        OPS[name] = (dtypes, doms or [ANY] * len(dtypes), fn)
        return fn
    return reg


def unary(name, code, out_dom=ANY, need=ANY):
    OPS[name] = ([F32], [need], lambda rng, s: (s[0], F32, out_dom, code, []))


for _n, _c, _d in [
    ("abs", "torch.abs({a})", ANY), ("neg", "torch.neg({a})", ANY),
    ("relu", "torch.relu({a})", ANY), ("sigmoid", "torch.sigmoid({a})", POS),
    ("tanh", "torch.tanh({a})", UNIT), ("exp", "torch.exp({a})", POS),
    ("sin", "torch.sin({a})", UNIT), ("cos", "torch.cos({a})", UNIT),
    ("atan", "torch.atan({a})", ANY), ("floor", "torch.floor({a})", ANY),
    ("ceil", "torch.ceil({a})", ANY), ("round", "torch.round({a})", ANY),
    ("sign", "torch.sign({a})", UNIT), ("erf", "torch.erf({a})", UNIT),
    ("gelu", "F.gelu({a})", ANY), ("elu", "F.elu({a})", ANY), ("selu", "F.selu({a})", ANY),
    ("celu", "F.celu({a})", ANY), ("leaky_relu", "F.leaky_relu({a}, 0.1)", ANY),
    ("hardtanh", "F.hardtanh({a})", UNIT), ("hardsigmoid", "F.hardsigmoid({a})", UNIT),
    ("hardswish", "F.hardswish({a})", ANY), ("softplus", "F.softplus({a})", POS),
    ("silu", "F.silu({a})", ANY), ("mish", "F.mish({a})", ANY),
    ("softsign", "F.softsign({a})", UNIT), ("relu6", "F.relu6({a})", ANY),
    ("logsigmoid", "F.logsigmoid({a})", ANY), ("clamp", "torch.clamp({a}, -0.5, 0.5)", UNIT),
    ("square", "torch.mul({a}, {a})", ANY), ("sinh", "torch.sinh({a})", ANY),
    ("cosh", "torch.cosh({a})", POS), ("trunc", "torch.trunc({a})", ANY),
    ("frac", "torch.frac({a})", UNIT), ("tanhshrink", "F.tanhshrink({a})", ANY),
    ("softshrink", "F.softshrink({a}, 0.2)", ANY), ("hardshrink", "F.hardshrink({a}, 0.2)", ANY),
]:
    unary(_n, _c, _d)
for _n, _c, _d, _need in [
    ("log", "torch.log({a})", ANY, POS), ("sqrt", "torch.sqrt({a})", POS, POS),
    ("rsqrt", "torch.rsqrt({a})", POS, POS), ("reciprocal", "torch.reciprocal({a})", POS, POS),
    ("log1p", "torch.log1p({a})", ANY, POS), ("log2", "torch.log2({a})", ANY, POS),
    ("asin", "torch.asin({a})", ANY, UNIT), ("acos", "torch.acos({a})", POS, UNIT),
]:
    unary(_n, _c, _d, _need)


def binary(name, code, need_b=ANY, need_a=ANY, out_dtype=F32, in_dtype=F32, out_dom=ANY):
    def fn(rng, s):
        shape = bcast(s[0], s[1])
        return None if shape is None else (shape, out_dtype, out_dom, code, [])
    OPS[name] = ([in_dtype, in_dtype], [need_a, need_b], fn)


binary("add", "torch.add({a}, {b})")
binary("sub", "torch.sub({a}, {b})")
binary("mul", "torch.mul({a}, {b})")
binary("div", "torch.div({a}, {b})", need_b=POS)
binary("pow", "torch.pow({a}, {b})", need_a=POS, need_b=UNIT, out_dom=POS)
binary("maximum", "torch.maximum({a}, {b})")
binary("minimum", "torch.minimum({a}, {b})")
for _n, _c in [("gt", "torch.gt"), ("lt", "torch.lt"), ("ge", "torch.ge"), ("le", "torch.le"),
               ("eq", "torch.eq"), ("ne", "torch.ne")]:
    binary(_n, _c + "({a}, {b})", out_dtype=BOOL)
for _n, _c in [("logical_and", "torch.logical_and"), ("logical_or", "torch.logical_or"),
               ("logical_xor", "torch.logical_xor")]:
    binary(_n, _c + "({a}, {b})", out_dtype=BOOL, in_dtype=BOOL)
binary("int_add", "torch.add({a}, {b})", out_dtype=I64, in_dtype=I64)
OPS["logical_not"] = ([BOOL], [ANY], lambda rng, s: (s[0], BOOL, ANY, "torch.logical_not({a})", []))
OPS["cast_float_bool"] = ([BOOL], [ANY], lambda rng, s: (s[0], F32, UNIT, "{a}.float()", []))
OPS["cast_float_int"] = ([I64], [ANY], lambda rng, s: (s[0], F32, ANY, "{a}.float()", []))
OPS["cast_int"] = ([F32], [ANY], lambda rng, s: (s[0], I64, ANY, "{a}.long()", []))


@op("where", [BOOL, F32, F32])
def _where(rng, s):
    shape = bcast(s[0], s[1])
    shape = shape and bcast(shape, s[2])
    return shape and (shape, F32, ANY, "torch.where({a}, {b}, {c})", [])


def _dim(rng, shape):
    return rng.randrange(len(shape)) if shape else None


def reduction(name, fn_code, out_dtype=F32, out_dom=ANY, keep_choice=True):
    def fn(rng, s):
        if not s[0]:
            return None
        d = _dim(rng, s[0])
        keep = rng.random() < 0.5 if keep_choice else False
        shape = list(s[0])
        if keep:
            shape[d] = 1
        else:
            del shape[d]
        return (tuple(shape), out_dtype, out_dom, fn_code.format(a="{a}", d=d, k=keep), [])
    OPS[name] = ([F32], [ANY], fn)


reduction("sum", "torch.sum({a}, dim={d}, keepdim={k})")
reduction("mean", "torch.mean({a}, dim={d}, keepdim={k})")
reduction("amax", "torch.amax({a}, dim={d}, keepdim={k})")
reduction("amin", "torch.amin({a}, dim={d}, keepdim={k})")
reduction("prod", "torch.prod({a}, dim={d}, keepdim={k})")
reduction("logsumexp", "torch.logsumexp({a}, dim={d}, keepdim={k})")
reduction("argmax", "torch.argmax({a}, dim={d}, keepdim={k})", out_dtype=I64)
reduction("argmin", "torch.argmin({a}, dim={d}, keepdim={k})", out_dtype=I64)


def along(name, code, out_dom=ANY):
    def fn(rng, s):
        if not s[0]:
            return None
        return (s[0], F32, out_dom, code.format(a="{a}", d=_dim(rng, s[0])), [])
    OPS[name] = ([F32], [ANY], fn)


along("cumsum", "torch.cumsum({a}, dim={d})")
along("softmax", "F.softmax({a}, dim={d})", UNIT)
along("log_softmax", "F.log_softmax({a}, dim={d})")
along("flip", "torch.flip({a}, dims=[{d}])")


@op("matmul", [F32])
def _matmul(rng, s):
    if not s[0]:
        return None
    n = rng.choice([1, 2, 4, 8])
    k = s[0][-1]
    shape = s[0][:-1] + (n,) if len(s[0]) > 1 else (n,)
    return shape, F32, ANY, "torch.matmul({a}, {p0})", [((k, n), "w")]


@op("linear", [F32])
def _linear(rng, s):
    if not s[0]:
        return None
    n = rng.choice([2, 4, 8])
    return s[0][:-1] + (n,), F32, ANY, "F.linear({a}, {p0}, {p1})", [((n, s[0][-1]), "w"),
                                                                      ((n,), "w")]


@op("bmm", [F32, F32])
def _bmm(rng, s):
    a, b = s
    if len(a) < 2 or len(b) < 2 or a[-1] != b[-2]:
        return None
    batch = bcast(a[:-2], b[:-2])
    return None if batch is None else (batch + (a[-2], b[-1]), F32, ANY,
                                       "torch.matmul({a}, {b})", [])


@op("conv2d", [F32])
def _conv2d(rng, s):
    if len(s[0]) != 4:
        return None
    n, c, h, w = s[0]
    k = rng.choice([1, 3])
    pad = rng.choice([0, k // 2])
    stride = rng.choice([1, 2])
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    if oh < 1 or ow < 1:
        return None
    o = rng.choice([2, 4, 8])
    code = "F.conv2d({a}, {p0}, {p1}, stride=%d, padding=%d)" % (stride, pad)
    return (n, o, oh, ow), F32, ANY, code, [((o, c, k, k), "w"), ((o,), "w")]


@op("conv1d", [F32])
def _conv1d(rng, s):
    if len(s[0]) != 3:
        return None
    n, c, l = s[0]
    k = rng.choice([1, 3])
    pad = rng.choice([0, 1])
    ol = l + 2 * pad - k + 1
    if ol < 1:
        return None
    o = rng.choice([2, 4])
    return (n, o, ol), F32, ANY, "F.conv1d({a}, {p0}, padding=%d)" % pad, [((o, c, k), "w")]


@op("max_pool2d", [F32])
def _maxpool(rng, s):
    if len(s[0]) != 4 or s[0][2] < 2 or s[0][3] < 2:
        return None
    n, c, h, w = s[0]
    return (n, c, h // 2, w // 2), F32, ANY, "F.max_pool2d({a}, 2)", []


@op("avg_pool2d", [F32])
def _avgpool(rng, s):
    if len(s[0]) != 4 or s[0][2] < 2 or s[0][3] < 2:
        return None
    n, c, h, w = s[0]
    return (n, c, h // 2, w // 2), F32, ANY, "F.avg_pool2d({a}, 2)", []


@op("max_pool1d", [F32])
def _maxpool1d(rng, s):
    if len(s[0]) != 3 or s[0][2] < 2:
        return None
    return s[0][:2] + (s[0][2] // 2,), F32, ANY, "F.max_pool1d({a}, 2)", []


@op("adaptive_avg_pool2d", [F32])
def _adaptive(rng, s):
    if len(s[0]) != 4:
        return None
    o = rng.choice([1, 2])
    if s[0][2] % o or s[0][3] % o:
        o = 1
    return s[0][:2] + (o, o), F32, ANY, "F.adaptive_avg_pool2d({a}, %d)" % o, []


@op("batch_norm", [F32])
def _batchnorm(rng, s):
    if len(s[0]) < 2:
        return None
    c = s[0][1]
    return (s[0], F32, ANY, "F.batch_norm({a}, {p0}, {p1}, {p2}, {p3}, False)",
            [((c,), "w"), ((c,), "pos"), ((c,), "w"), ((c,), "w")])


@op("layer_norm", [F32])
def _layernorm(rng, s):
    if not s[0]:
        return None
    d = s[0][-1]
    return s[0], F32, ANY, "F.layer_norm({a}, (%d,), {p0}, {p1})" % d, [((d,), "w"), ((d,), "w")]


@op("group_norm", [F32])
def _groupnorm(rng, s):
    if len(s[0]) < 3 or s[0][1] % 2:
        return None
    return s[0], F32, ANY, "F.group_norm({a}, 2)", []


@op("instance_norm", [F32])
def _instnorm(rng, s):
    if len(s[0]) < 3 or numel(s[0][2:]) < 2:
        return None
    return s[0], F32, ANY, "F.instance_norm({a})", []


@op("prelu", [F32])
def _prelu(rng, s):
    if len(s[0]) < 2:
        return None
    return s[0], F32, ANY, "F.prelu({a}, {p0})", [((s[0][1],), "w")]


@op("reshape", [F32])
def _reshape(rng, s):
    if len(s[0]) < 2:
        return None
    shape = s[0][:-2] + (s[0][-2] * s[0][-1],)
    return shape, F32, ANY, "torch.reshape({a}, %r)" % (shape,), []


@op("transpose", [F32])
def _transpose(rng, s):
    if len(s[0]) < 2:
        return None
    i, j = rng.sample(range(len(s[0])), 2)
    shape = list(s[0])
    shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape), F32, ANY, "torch.transpose({a}, %d, %d)" % (i, j), []


@op("permute", [F32])
def _permute(rng, s):
    if len(s[0]) < 2:
        return None
    perm = list(range(len(s[0])))
    rng.shuffle(perm)
    return tuple(s[0][p] for p in perm), F32, ANY, "{a}.permute(%s)" % ", ".join(map(str, perm)), []


@op("flatten", [F32])
def _flatten(rng, s):
    if len(s[0]) < 2:
        return None
    return (s[0][0], numel(s[0][1:])), F32, ANY, "torch.flatten({a}, 1)", []


@op("squeeze", [F32])
def _squeeze(rng, s):
    ones = [i for i, d in enumerate(s[0]) if d == 1]
    if not ones or len(s[0]) < 2:
        return None
    d = rng.choice(ones)
    return s[0][:d] + s[0][d + 1:], F32, ANY, "torch.squeeze({a}, %d)" % d, []


@op("unsqueeze", [F32])
def _unsqueeze(rng, s):
    if len(s[0]) >= 4:
        return None
    d = rng.randrange(len(s[0]) + 1)
    return s[0][:d] + (1,) + s[0][d:], F32, ANY, "torch.unsqueeze({a}, %d)" % d, []


@op("expand", [F32])
def _expand(rng, s):
    ones = [i for i, d in enumerate(s[0]) if d == 1]
    if not ones:
        return None
    shape = list(s[0])
    shape[rng.choice(ones)] = rng.choice([2, 3])
    return tuple(shape), F32, ANY, "{a}.expand(%s)" % ", ".join(map(str, shape)), []


@op("concat", [F32, F32])
def _concat(rng, s):
    a, b = s
    if not a or len(a) != len(b):
        return None
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) > 1:
        return None
    d = diff[0] if diff else rng.randrange(len(a))
    shape = list(a)
    shape[d] = a[d] + b[d]
    return tuple(shape), F32, ANY, "torch.cat([{a}, {b}], dim=%d)" % d, []


@op("slice", [F32])
def _slice(rng, s):
    dims = [i for i, d in enumerate(s[0]) if d >= 2]
    if not dims:
        return None
    d = rng.choice(dims)
    lo = rng.randrange(s[0][d] - 1)
    hi = rng.randrange(lo + 1, s[0][d] + 1)
    shape = list(s[0])
    shape[d] = hi - lo
    return tuple(shape), F32, ANY, "torch.narrow({a}, %d, %d, %d)" % (d, lo, hi - lo), []


@op("pad", [F32])
def _pad(rng, s):
    if len(s[0]) < 2:
        return None
    mode = rng.choice(["constant", "reflect"])
    if mode == "reflect" and (len(s[0]) != 3 or s[0][-1] < 2):
        mode = "constant"
    shape = s[0][:-1] + (s[0][-1] + 2,)
    return shape, F32, ANY, "F.pad({a}, (1, 1), mode=%r)" % mode, []


@op("index_select", [F32])
def _gather(rng, s):
    if not s[0]:
        return None
    d = _dim(rng, s[0])
    k = rng.choice([1, 2, 3])
    shape = list(s[0])
    shape[d] = k
    return (tuple(shape), F32, ANY, "torch.index_select({a}, %d, {p0})" % d,
            [((k,), "idx:%d" % s[0][d])])


@op("tril", [F32])
def _tril(rng, s):
    if len(s[0]) < 2:
        return None
    f = rng.choice(["tril", "triu"])
    return s[0], F32, ANY, "torch.%s({a}, %d)" % (f, rng.choice([-1, 0, 1])), []


@op("interpolate", [F32])
def _interp(rng, s):
    if len(s[0]) != 4 or numel(s[0]) * 4 > 1 << 16:
        return None
    n, c, h, w = s[0]
    mode = rng.choice(["nearest", "bilinear"])
    extra = ", align_corners=False" if mode == "bilinear" else ""
    return ((n, c, h * 2, w * 2), F32, ANY,
            "F.interpolate({a}, scale_factor=2.0, mode=%r%s)" % (mode, extra), [])


@op("chunk", [F32])
def _chunk(rng, s):
    dims = [i for i, d in enumerate(s[0]) if d >= 2 and d % 2 == 0]
    if not dims:
        return None
    d = rng.choice(dims)
    shape = list(s[0])
    shape[d] //= 2
    return tuple(shape), F32, ANY, "torch.chunk({a}, 2, dim=%d)[1]" % d, []


@op("stack", [F32, F32])
def _stack(rng, s):
    if s[0] != s[1] or len(s[0]) >= 4:
        return None
    return (2,) + s[0], F32, ANY, "torch.stack([{a}, {b}])", []


# ---------------------------------------------------------------- generation


def _rand_shape(rng, max_elements):
    for _ in range(50):
        rank = rng.choice([2, 3, 4, 4])
        shape = tuple(rng.choice([1, 2, 3, 4, 8]) for _ in range(rank))
        if numel(shape) <= max_elements:
            return shape
    return (1, 1)


# Operators torch.onnx 1.13 refuses at opset 16 (aten::sinh, cosh, trunc, frac, logical_not):
# kept, so campaigns meet the exporter's refusal now and then, but drawn rarely so they do not
# hide what the rest of a model would show.
RARE = {"sinh": 0.02, "cosh": 0.02, "trunc": 0.02, "frac": 0.02, "logical_not": 0.02}


def _draw_op(rng, names, cumulative):
    x = rng.random() * cumulative[-1]
    lo, hi = 0, len(cumulative) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return names[lo]


def _fits(v, dtype, dom):
    if v.dtype != dtype:
        return False
    return dom == ANY or v.dom == dom or (dom == UNIT and v.dom == UNIT)


def generate(seed, nodes, max_elements=1 << 16, dtypes=(F32,)):
    """A spec with exactly `nodes` operators (dict: inputs, nodes, outputs)."""
    rng = random.Random("convfail-synth:%d:%d" % (seed, nodes))
    names = sorted(OPS)
    cumulative, total = [], 0.0
    for n in names:
        total += RARE.get(n, 1.0)
        cumulative.append(total)
    vals, inputs, spec_nodes = [], [], []

    def new_input(shape, dtype, dom):
        v = Val(len(vals), shape, dtype, dom)
        vals.append(v)
        inputs.append({"id": v.id, "shape": list(shape), "dtype": dtype, "dom": dom})
        return v

    new_input(_rand_shape(rng, max_elements), F32, ANY)
    if I64 in dtypes:
        new_input(_rand_shape(rng, max_elements), I64, ANY)
    if BOOL in dtypes:
        new_input(_rand_shape(rng, max_elements), BOOL, ANY)
    used = set()
    while len(spec_nodes) < nodes:
        name = _draw_op(rng, names, cumulative)
        in_dtypes, doms, build = OPS[name]
        args = []
        for k, (dt, dom) in enumerate(zip(in_dtypes, doms)):
            cands = [v for v in vals if _fits(v, dt, dom)]
            if k > 0 and args:  # prefer a partner of the same shape (broadcasting is rarer)
                same = [v for v in cands if v.shape == args[0].shape]
                if same and rng.random() < 0.7:
                    cands = same
            if not cands or rng.random() < 0.03:
                if dt != F32 and not cands:
                    break  # no int/bool value yet: redraw the operator
                shape = args[0].shape if args else _rand_shape(rng, max_elements)
                args.append(new_input(shape, dt, POS if dom == POS else ANY))
                continue
            unused = [v for v in cands if v.id not in used]
            pool = unused if unused and rng.random() < 0.6 else cands
            # Recent values first: deeper graphs.
            args.append(pool[-1 - min(int(rng.expovariate(0.4)), len(pool) - 1)])
        if len(args) != len(in_dtypes):
            continue
        out = build(rng, [a.shape for a in args])
        if not out:
            continue
        shape, dtype, dom, code, params = out
        if numel(shape) > max_elements or numel(shape) == 0 or len(shape) > 5:
            continue
        if any(numel(p[0]) > max_elements for p in params):
            continue
        v = Val(len(vals), shape, dtype, dom)
        vals.append(v)
        used.update(a.id for a in args)
        spec_nodes.append({"op": name, "args": [a.id for a in args], "out": v.id,
                           "shape": list(shape), "dtype": dtype, "dom": dom, "code": code,
                           "params": [[list(p[0]), p[1]] for p in params],
                           "pseed": rng.randrange(1 << 30)})
    return {"seed": seed, "nodes": nodes, "inputs": inputs, "body": spec_nodes}


def restrict(spec, keep):
    """The spec with only the nodes at positions `keep`; values a kept node reads whose producer
    was dropped become graph inputs (same shape, dtype, domain)."""
    keep = sorted(set(keep))
    body = [spec["body"][i] for i in keep]
    produced = {n["out"] for n in body}
    known = {i["id"]: i for i in spec["inputs"]}
    by_out = {n["out"]: n for n in spec["body"]}
    inputs, seen = [], set()
    for n in body:
        for a in n["args"]:
            if a in produced or a in seen:
                continue
            seen.add(a)
            if a in known:
                inputs.append(known[a])
            else:
                src = by_out[a]
                dom = POS if src["dom"] == POS else ANY
                inputs.append({"id": a, "shape": src["shape"], "dtype": src["dtype"], "dom": dom})
    inputs.sort(key=lambda i: i["id"])
    return {"seed": spec["seed"], "nodes": len(body), "inputs": inputs, "body": body,
            "kept": keep}


def outputs_of(spec):
    """Values no kept node reads: the model's outputs (at most 8, the last ones)."""
    read = {a for n in spec["body"] for a in n["args"]}
    outs = [n["out"] for n in spec["body"] if n["out"] not in read]
    return outs[-8:] if outs else [spec["body"][-1]["out"]] if spec["body"] else []


PRELUDE = '''import torch
import torch.nn.functional as F


def _param(shape, seed, kind):
    g = torch.Generator().manual_seed(seed)
    if kind.startswith("idx:"):
        return torch.randint(0, int(kind[4:]), shape, generator=g)
    t = torch.rand(shape, generator=g)
    if kind == "pos":
        return torch.nn.Parameter(t + 0.5, requires_grad=False)
    return torch.nn.Parameter((t * 2 - 1) * 0.5, requires_grad=False)

'''


def render(spec):
    """The spec as a short, self-contained Python program: Model, INPUTS, make_model,
    make_inputs(k)."""
    lines = [PRELUDE, "class Model(torch.nn.Module):", "    def __init__(self):",
             "        super().__init__()"]
    body = []
    pnames = 0
    for n in spec["body"]:
        names = {}
        for j, (shape, kind) in enumerate(n["params"]):
            pname = "p%d" % pnames
            pnames += 1
            seed = n["pseed"] + j
            if kind.startswith("idx:"):
                lines.append("        self.register_buffer(%r, _param(%r, %d, %r))"
                             % (pname, tuple(shape), seed, kind))
            else:
                lines.append("        self.%s = _param(%r, %d, %r)" % (pname, tuple(shape), seed, kind))
            names["p%d" % j] = "self." + pname
        a = ["v%d" % x for x in n["args"]] + ["", "", ""]
        expr = n["code"].format(a=a[0], b=a[1], c=a[2], **names)
        body.append("        v%d = %s  # %s %s" % (n["out"], expr, n["op"], tuple(n["shape"])))
    ins = ", ".join("v%d" % i["id"] for i in spec["inputs"])
    outs = outputs_of(spec)
    lines.append("")
    lines.append("    def forward(self, %s):" % ins)
    lines.extend(body)
    lines.append("        return %s" % ", ".join("v%d" % o for o in outs) + ("," if len(outs) == 1 else ""))
    lines.append("")
    lines.append("")
    lines.append("INPUTS = %r  # (shape, dtype, domain)" % [
        (tuple(i["shape"]), i["dtype"], i["dom"]) for i in spec["inputs"]])
    lines.append("")
    lines.append('''

def make_model():
    return Model().eval()


def make_inputs(k=0):
    g = torch.Generator().manual_seed(%d * 1000 + k)
    out = []
    for shape, dtype, dom in INPUTS:
        if dtype == "float32":
            t = torch.rand(shape, generator=g)
            out.append(t + 0.5 if dom == "pos" else t * 2 - 1)
        elif dtype == "int64":
            out.append(torch.randint(0, 4, shape, generator=g))
        else:
            out.append(torch.rand(shape, generator=g) < 0.5)
    return tuple(out)
''' % spec["seed"])
    return "\n".join(lines)
