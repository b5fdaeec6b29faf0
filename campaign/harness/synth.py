"""convfail's synthetic model generator: a random DAG of exactly N PyTorch operators, valid by
construction, rendered as a short Python program (class Model, make_inputs).

A model is a *spec* (plain JSON): graph inputs (shape, dtype, domain) and nodes, each one operator
of OPS applied to earlier values, with its output's shape, dtype and domain computed forward. An
operator that cannot fit the values at hand is redrawn. The same seed gives the same spec, the
same program text and (torch.onnx.export being deterministic) the same ONNX bytes.

Types are NNSmith's generation types (ALL_DTYPES). Each node has one type T among the requested
ones that its operator takes in torch 1.13 eager on CPU (SUPPORT, checked pair by pair by
tests/e2e/campaign_synth_table.sh); a value of another type reaches it through an explicit cast.
Like NNSmith's operators, a node keeps its type: an integer type for an operator torch promotes
to float32 (sin, exp, div, ...) is drawn only rarely (PROMOTING).

Domains keep inputs safe: "unit" values lie in [-1, 1], "pos" values in (0, +inf) (graph inputs
in [0.5, 1.5]); an operator with a restricted domain (log, sqrt, div, asin, ...) only takes
values of that domain, or a fresh graph input drawn in it. An integer or bool value also carries
its exact range [lo, hi], computed forward by interval arithmetic (RANGE): an integer operator
whose result could leave its type's range (a product of int8 values, abs of the type's minimum,
a negative unsigned difference, a negative integer power) is redrawn, so no value wraps.

A spec can be cut to a subset of its nodes (`restrict`): values a kept node reads whose producer
was dropped become graph inputs of the same shape, dtype, domain and range (delta debugging over
the operator graph).
"""

import random

# The version of the seed -> model mapping: bump it whenever the same seed may give another model
# (a new operator, type or drawing rule). convfail puts it in a campaign's configuration
# (campaign/run/plan.h kSyntheticGenerator, kept equal to it), so a campaign stored by another
# generator is never resumed with different models. 2: NNSmith's nine types. 3: a main type per
# model and, given the measured support matrix, only the operator/type pairs that work end to end.
GENERATOR = 3

F16, F32, F64 = "float16", "float32", "float64"
U8, I8, I16, I32, I64 = "uint8", "int8", "int16", "int32", "int64"
BOOL = "bool"
# NNSmith's generation types, in the order graph inputs are made.
ALL_DTYPES = (F32, F16, F64, U8, I8, I16, I32, I64, BOOL)
FLOATS = (F16, F32, F64)
LIMITS = {U8: (0, 255), I8: (-128, 127), I16: (-(1 << 15), (1 << 15) - 1),
          I32: (-(1 << 31), (1 << 31) - 1), I64: (-(1 << 63), (1 << 63) - 1), BOOL: (0, 1),
          F16: (-65504, 65504)}
T = "T"  # an operator's generic input/output type (the node's type)
ANYTYPE = "*"  # an input of any type (cast)
ANY, UNIT, POS = "any", "unit", "pos"


def dtype_list(dtypes):
    """The requested types in ALL_DTYPES order, float32 always among them; ("all",) names the
    nine. ValueError names an unknown type."""
    names = set()
    for d in dtypes:
        if d == "all":
            names.update(ALL_DTYPES)
        elif d in ALL_DTYPES:
            names.add(d)
        else:
            raise ValueError("unknown dtype %r (one of %s, or all)" % (d, ", ".join(ALL_DTYPES)))
    names.add(F32)
    return tuple(d for d in ALL_DTYPES if d in names)


def spec_dtypes(spec):
    """The types a spec's model uses, in ALL_DTYPES order: its nodes' and those of the graph
    inputs a node reads (an input nothing reads is not in the exported model)."""
    read = {a for n in spec.get("body", []) for a in n.get("args", [])}
    used = {n.get("dtype") for n in spec.get("body", [])}
    used.update(i.get("dtype") for i in spec.get("inputs", []) if i.get("id") in read)
    return [d for d in ALL_DTYPES if d in used]


class Val:
    __slots__ = ("id", "shape", "dtype", "dom", "range")

    def __init__(self, vid, shape, dtype, dom, vrange=None):
        self.id, self.shape, self.dtype, self.dom = vid, tuple(shape), dtype, dom
        self.range = tuple(vrange) if vrange is not None else None


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
# Each entry: name -> (input dtypes, input domain needed per input, builder). An input dtype T is
# the node's generic type (one of SUPPORT[name], the same for every T input of the node); BOOL
# is a fixed type. A builder gets (rng, shapes) and returns (out_shape, out_dtype, out_domain,
# code, params) or None, where out_dtype T is the node's type as out_type promotes it, code
# is a format string over {a}, {b}, {c} (input names) and {p0}, {p1} (parameter names), and
# params a list of (shape, kind) with kind in "w" (weights), "pos", "idx:<hi>" (int64 indices);
# weights take the node's type T.

OPS = {}


def op(name, dtypes, doms=None):
    def reg(fn):
        OPS[name] = (dtypes, doms or [ANY] * len(dtypes), fn)
        return fn
    return reg


def unary(name, code, out_dom=ANY, need=ANY):
    OPS[name] = ([T], [need], lambda rng, s: (s[0], T, out_dom, code, []))


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


def binary(name, code, need_b=ANY, need_a=ANY, out_dtype=T, in_dtype=T, out_dom=ANY):
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
OPS["logical_not"] = ([BOOL], [ANY], lambda rng, s: (s[0], BOOL, ANY, "torch.logical_not({a})", []))
# A cast of any value to another of the requested dtypes: the generator picks the target and
# the code (_Graph.cast, cast_code); the builder is never called.
OPS["cast"] = ([ANYTYPE], [ANY], None)


@op("where", [BOOL, T, T])
def _where(rng, s):
    shape = bcast(s[0], s[1])
    shape = shape and bcast(shape, s[2])
    return shape and (shape, T, ANY, "torch.where({a}, {b}, {c})", [])


def _dim(rng, shape):
    return rng.randrange(len(shape)) if shape else None


def reduction(name, fn_code, out_dtype=T, out_dom=ANY, keep_choice=True):
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
    OPS[name] = ([T], [ANY], fn)


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
        return (s[0], T, out_dom, code.format(a="{a}", d=_dim(rng, s[0])), [])
    OPS[name] = ([T], [ANY], fn)


along("cumsum", "torch.cumsum({a}, dim={d})")
along("softmax", "F.softmax({a}, dim={d})", UNIT)
along("log_softmax", "F.log_softmax({a}, dim={d})")
along("flip", "torch.flip({a}, dims=[{d}])")


@op("matmul", [T])
def _matmul(rng, s):
    if not s[0]:
        return None
    n = rng.choice([1, 2, 4, 8])
    k = s[0][-1]
    shape = s[0][:-1] + (n,) if len(s[0]) > 1 else (n,)
    return shape, T, ANY, "torch.matmul({a}, {p0})", [((k, n), "w")]


@op("linear", [T])
def _linear(rng, s):
    if not s[0]:
        return None
    n = rng.choice([2, 4, 8])
    return s[0][:-1] + (n,), T, ANY, "F.linear({a}, {p0}, {p1})", [((n, s[0][-1]), "w"),
                                                                    ((n,), "w")]


@op("bmm", [T, T])
def _bmm(rng, s):
    a, b = s
    if len(a) < 2 or len(b) < 2 or a[-1] != b[-2]:
        return None
    batch = bcast(a[:-2], b[:-2])
    return None if batch is None else (batch + (a[-2], b[-1]), T, ANY,
                                       "torch.matmul({a}, {b})", [])


@op("conv2d", [T])
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
    return (n, o, oh, ow), T, ANY, code, [((o, c, k, k), "w"), ((o,), "w")]


@op("conv1d", [T])
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
    return (n, o, ol), T, ANY, "F.conv1d({a}, {p0}, padding=%d)" % pad, [((o, c, k), "w")]


@op("max_pool2d", [T])
def _maxpool(rng, s):
    if len(s[0]) != 4 or s[0][2] < 2 or s[0][3] < 2:
        return None
    n, c, h, w = s[0]
    return (n, c, h // 2, w // 2), T, ANY, "F.max_pool2d({a}, 2)", []


@op("avg_pool2d", [T])
def _avgpool(rng, s):
    if len(s[0]) != 4 or s[0][2] < 2 or s[0][3] < 2:
        return None
    n, c, h, w = s[0]
    return (n, c, h // 2, w // 2), T, ANY, "F.avg_pool2d({a}, 2)", []


@op("max_pool1d", [T])
def _maxpool1d(rng, s):
    if len(s[0]) != 3 or s[0][2] < 2:
        return None
    return s[0][:2] + (s[0][2] // 2,), T, ANY, "F.max_pool1d({a}, 2)", []


@op("adaptive_avg_pool2d", [T])
def _adaptive(rng, s):
    if len(s[0]) != 4:
        return None
    o = rng.choice([1, 2])
    if s[0][2] % o or s[0][3] % o:
        o = 1
    return s[0][:2] + (o, o), T, ANY, "F.adaptive_avg_pool2d({a}, %d)" % o, []


@op("batch_norm", [T])
def _batchnorm(rng, s):
    if len(s[0]) < 2:
        return None
    c = s[0][1]
    return (s[0], T, ANY, "F.batch_norm({a}, {p0}, {p1}, {p2}, {p3}, False)",
            [((c,), "w"), ((c,), "pos"), ((c,), "w"), ((c,), "w")])


@op("layer_norm", [T])
def _layernorm(rng, s):
    if not s[0]:
        return None
    d = s[0][-1]
    return s[0], T, ANY, "F.layer_norm({a}, (%d,), {p0}, {p1})" % d, [((d,), "w"), ((d,), "w")]


@op("group_norm", [T])
def _groupnorm(rng, s):
    if len(s[0]) < 3 or s[0][1] % 2:
        return None
    return s[0], T, ANY, "F.group_norm({a}, 2)", []


@op("instance_norm", [T])
def _instnorm(rng, s):
    if len(s[0]) < 3 or numel(s[0][2:]) < 2:
        return None
    return s[0], T, ANY, "F.instance_norm({a})", []


@op("prelu", [T])
def _prelu(rng, s):
    if len(s[0]) < 2:
        return None
    return s[0], T, ANY, "F.prelu({a}, {p0})", [((s[0][1],), "w")]


@op("reshape", [T])
def _reshape(rng, s):
    if len(s[0]) < 2:
        return None
    shape = s[0][:-2] + (s[0][-2] * s[0][-1],)
    return shape, T, ANY, "torch.reshape({a}, %r)" % (shape,), []


@op("transpose", [T])
def _transpose(rng, s):
    if len(s[0]) < 2:
        return None
    i, j = rng.sample(range(len(s[0])), 2)
    shape = list(s[0])
    shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape), T, ANY, "torch.transpose({a}, %d, %d)" % (i, j), []


@op("permute", [T])
def _permute(rng, s):
    if len(s[0]) < 2:
        return None
    perm = list(range(len(s[0])))
    rng.shuffle(perm)
    return tuple(s[0][p] for p in perm), T, ANY, "{a}.permute(%s)" % ", ".join(map(str, perm)), []


@op("flatten", [T])
def _flatten(rng, s):
    if len(s[0]) < 2:
        return None
    return (s[0][0], numel(s[0][1:])), T, ANY, "torch.flatten({a}, 1)", []


@op("squeeze", [T])
def _squeeze(rng, s):
    ones = [i for i, d in enumerate(s[0]) if d == 1]
    if not ones or len(s[0]) < 2:
        return None
    d = rng.choice(ones)
    return s[0][:d] + s[0][d + 1:], T, ANY, "torch.squeeze({a}, %d)" % d, []


@op("unsqueeze", [T])
def _unsqueeze(rng, s):
    if len(s[0]) >= 4:
        return None
    d = rng.randrange(len(s[0]) + 1)
    return s[0][:d] + (1,) + s[0][d:], T, ANY, "torch.unsqueeze({a}, %d)" % d, []


@op("expand", [T])
def _expand(rng, s):
    ones = [i for i, d in enumerate(s[0]) if d == 1]
    if not ones:
        return None
    shape = list(s[0])
    shape[rng.choice(ones)] = rng.choice([2, 3])
    return tuple(shape), T, ANY, "{a}.expand(%s)" % ", ".join(map(str, shape)), []


@op("concat", [T, T])
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
    return tuple(shape), T, ANY, "torch.cat([{a}, {b}], dim=%d)" % d, []


@op("slice", [T])
def _slice(rng, s):
    dims = [i for i, d in enumerate(s[0]) if d >= 2]
    if not dims:
        return None
    d = rng.choice(dims)
    lo = rng.randrange(s[0][d] - 1)
    hi = rng.randrange(lo + 1, s[0][d] + 1)
    shape = list(s[0])
    shape[d] = hi - lo
    return tuple(shape), T, ANY, "torch.narrow({a}, %d, %d, %d)" % (d, lo, hi - lo), []


# pad and interpolate are two operators each: their modes take different types.
@op("pad", [T])
def _pad(rng, s):
    if len(s[0]) < 2:
        return None
    shape = s[0][:-1] + (s[0][-1] + 2,)
    return shape, T, ANY, "F.pad({a}, (1, 1), mode='constant')", []


@op("pad_reflect", [T])
def _pad_reflect(rng, s):
    if len(s[0]) != 3 or s[0][-1] < 2:
        return None
    shape = s[0][:-1] + (s[0][-1] + 2,)
    return shape, T, ANY, "F.pad({a}, (1, 1), mode='reflect')", []


@op("index_select", [T])
def _gather(rng, s):
    if not s[0]:
        return None
    d = _dim(rng, s[0])
    k = rng.choice([1, 2, 3])
    shape = list(s[0])
    shape[d] = k
    return (tuple(shape), T, ANY, "torch.index_select({a}, %d, {p0})" % d,
            [((k,), "idx:%d" % s[0][d])])


@op("tril", [T])
def _tril(rng, s):
    if len(s[0]) < 2:
        return None
    f = rng.choice(["tril", "triu"])
    return s[0], T, ANY, "torch.%s({a}, %d)" % (f, rng.choice([-1, 0, 1])), []


def interpolate(name, mode):
    def fn(rng, s):
        if len(s[0]) != 4 or numel(s[0]) * 4 > 1 << 16:
            return None
        n, c, h, w = s[0]
        return ((n, c, h * 2, w * 2), T, ANY,
                "F.interpolate({a}, scale_factor=2.0, mode=%r%s)" % (mode, extra), [])
    extra = ", align_corners=False" if mode == "bilinear" else ""
    OPS[name] = ([T], [ANY], fn)


interpolate("interpolate_nearest", "nearest")
interpolate("interpolate_bilinear", "bilinear")


@op("chunk", [T])
def _chunk(rng, s):
    dims = [i for i, d in enumerate(s[0]) if d >= 2 and d % 2 == 0]
    if not dims:
        return None
    d = rng.choice(dims)
    shape = list(s[0])
    shape[d] //= 2
    return tuple(shape), T, ANY, "torch.chunk({a}, 2, dim=%d)[1]" % d, []


@op("stack", [T, T])
def _stack(rng, s):
    if s[0] != s[1] or len(s[0]) >= 4:
        return None
    return (2,) + s[0], T, ANY, "torch.stack([{a}, {b}])", []


# ---------------------------------------------------------------- types and ranges

# The types each operator with a T input takes in torch 1.13 eager on CPU (each pair checked by
# tests/e2e/campaign_synth_table.sh): types -> operators. float16 lacks most CPU kernels there.
_SUPPORT_BY_TYPES = {
    "float16 float32 float64 uint8 int8 int16 int32 int64 bool":
        "add amax amin chunk concat div eq expand flatten flip ge gt index_select le lt maximum "
        "minimum mul ne pad permute reciprocal reshape sign slice square squeeze stack sum "
        "transpose tril unsqueeze where",
    "float16 float32 float64 uint8 int8 int16 int32 int64":
        "abs argmax argmin neg pow softsign sub",
    "float32 float64 uint8 int8 int16 int32 int64 bool":
        "acos asin atan clamp cos cosh cumsum erf exp log log1p log2 logsumexp prod rsqrt sigmoid "
        "sin sinh sqrt tanh",
    "float32 float64 uint8 int8 int16 int32 int64":
        "bmm ceil conv1d conv2d floor linear matmul relu relu6 round tanhshrink trunc",
    "float32 float64 int8 int16 int32 int64": "hardtanh",
    "float16 float32 float64": "frac mean",
    "float32 float64 int64": "avg_pool2d",
    "float32 float64 uint8": "interpolate_nearest",
    "float32 float64":
        "adaptive_avg_pool2d batch_norm celu elu gelu group_norm hardshrink hardsigmoid "
        "hardswish instance_norm interpolate_bilinear layer_norm leaky_relu log_softmax "
        "logsigmoid max_pool1d max_pool2d mish pad_reflect prelu selu silu softmax softplus "
        "softshrink",
}
SUPPORT = {n: frozenset(ts.split()) for ts, ns in _SUPPORT_BY_TYPES.items() for n in ns.split()}

# An operator's output type when its type T is an integer or bool (a float T stays T): FLOAT_OUT
# computes in float32 (torch's default type), LONG_OUT accumulates in int64; the rest keep T.
FLOAT_OUT = {"acos", "asin", "atan", "clamp", "cos", "cosh", "div", "erf", "exp", "log", "log1p",
             "log2", "logsumexp", "reciprocal", "rsqrt", "sigmoid", "sin", "sinh", "softsign",
             "sqrt", "tanh", "tanhshrink"}
LONG_OUT = {"sum", "cumsum", "prod"}


def out_type(name, t, built):
    """The dtype of a node of operator `name` and type t whose builder gave dtype `built`."""
    if built != T:
        return built
    if t in FLOATS:
        return t
    if name in FLOAT_OUT:
        return F32
    return I64 if name in LONG_OUT else t


def _mul(a, b):
    p = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(p), max(p)


def _add(a, b):
    return a[0] + b[0], a[1] + b[1]


def _union(a, b):
    return min(a[0], b[0]), max(a[1], b[1])


def _acc(r, n):
    """Every partial sum of n values in r (an accumulation never leaves it)."""
    return n * min(r[0], 0), n * max(r[1], 0)


def _clip(r, lo, hi):
    return min(max(r[0], lo), hi), min(max(r[1], lo), hi)


def _sgn(x):
    return (x > 0) - (x < 0)


def _power(r, n):
    """Every product of up to n values in r."""
    m = max(abs(r[0]), abs(r[1]), 1) ** n
    return (r[0] ** n if r[0] >= 0 else -m), m


def _pow(a, b):
    if a[0] < 1 or b[0] < 0 or b[1] > 64:  # no negative integer power; a bounded exponent
        return None
    return a[0] ** b[0], a[1] ** b[1]


def weight_range(t, kind):
    """The values an integer weight of type t and kind ("w", "pos") holds (see PRELUDE)."""
    if t == BOOL:
        return 0, 1
    if kind == "pos":
        return 1, 2
    return (0, 2) if t == U8 else (-2, 2)


def _linear_range(r, s, o, p, t):
    y = _acc(_mul(r[0], weight_range(t, "w")), numel(p[0][0][1:]))
    return _add(y, weight_range(t, "w")) if len(p) > 1 else y


_SAME = lambda r, s, o, p, t: r[0]  # noqa: E731  (a value's elements, moved or repeated)

# Integer and bool ranges, computed forward: (input ranges, input shapes, output shape, params,
# type) -> the output's range. An integer-valued operator without an entry is never drawn
# for an integer type (the table test checks SUPPORT against it).
RANGE = {
    "abs": lambda r, s, o, p, t: (0 if r[0][0] <= 0 <= r[0][1] else min(map(abs, r[0])),
                                  max(map(abs, r[0]))),
    "neg": lambda r, s, o, p, t: (-r[0][1], -r[0][0]),
    "relu": lambda r, s, o, p, t: _clip(r[0], 0, max(r[0][1], 0)),
    "relu6": lambda r, s, o, p, t: _clip(r[0], 0, 6),
    "hardtanh": lambda r, s, o, p, t: _clip(r[0], -1, 1),
    "sign": lambda r, s, o, p, t: (_sgn(r[0][0]), _sgn(r[0][1])),
    "square": lambda r, s, o, p, t: _mul(r[0], r[0]),
    "add": lambda r, s, o, p, t: _add(r[0], r[1]),
    "sub": lambda r, s, o, p, t: (r[0][0] - r[1][1], r[0][1] - r[1][0]),
    "mul": lambda r, s, o, p, t: _mul(r[0], r[1]),
    "pow": lambda r, s, o, p, t: _pow(r[0], r[1]),
    "maximum": lambda r, s, o, p, t: (max(r[0][0], r[1][0]), max(r[0][1], r[1][1])),
    "minimum": lambda r, s, o, p, t: (min(r[0][0], r[1][0]), min(r[0][1], r[1][1])),
    "where": lambda r, s, o, p, t: _union(r[1], r[2]),
    "concat": lambda r, s, o, p, t: _union(r[0], r[1]),
    "stack": lambda r, s, o, p, t: _union(r[0], r[1]),
    "pad": lambda r, s, o, p, t: _union(r[0], (0, 0)),
    "tril": lambda r, s, o, p, t: _union(r[0], (0, 0)),
    "sum": lambda r, s, o, p, t: _acc(r[0], numel(s[0]) // numel(o)),
    "cumsum": lambda r, s, o, p, t: _acc(r[0], max(s[0])),
    "prod": lambda r, s, o, p, t: _power(r[0], numel(s[0]) // numel(o)),
    "matmul": lambda r, s, o, p, t: _acc(_mul(r[0], weight_range(t, "w")), s[0][-1]),
    "linear": _linear_range,
    "conv1d": _linear_range,
    "conv2d": _linear_range,
    "bmm": lambda r, s, o, p, t: _acc(_mul(r[0], r[1]), s[0][-1]),
}
for _n in ["floor", "ceil", "round", "trunc", "amax", "amin", "flip", "reshape", "transpose",
           "permute", "flatten", "squeeze", "unsqueeze", "expand", "slice", "index_select",
           "chunk", "max_pool2d", "max_pool1d", "avg_pool2d", "adaptive_avg_pool2d",
           "interpolate_nearest"]:
    RANGE[_n] = _SAME


def int_dom(r):
    """The domain of an integer value with range r."""
    if r[0] >= 1:
        return POS
    return UNIT if r[0] >= -1 and r[1] <= 1 else ANY


def fits_type(r, t):
    lo, hi = LIMITS[t]
    return lo <= r[0] and r[1] <= hi


def input_range(t, dom):
    """The range of a fresh integer or bool graph input of domain dom."""
    if t == BOOL:
        return 0, 1
    if dom == POS:
        return 1, 4
    if dom == UNIT:  # 0 and 1: an integer power's exponent is never negative
        return 0, 1
    return (0, 8) if t == U8 else (-4, 4)


def node_result(name, t, args, shape, built, dom, params):
    """(dtype, dom, range) of a node of operator `name` and type t on Vals args, or None when
    an integer result has no range rule or could leave its type."""
    dtype = out_type(name, t, built)
    if dtype in FLOATS:
        return dtype, dom, None
    if dtype == BOOL:
        return dtype, ANY, (0, 1)
    if name in ("argmax", "argmin"):
        return dtype, ANY, (0, max(args[0].shape) - 1)
    rule = RANGE.get(name)
    r = rule and rule([a.range for a in args], [a.shape for a in args], shape, params, t)
    if r is None or not fits_type(r, dtype):
        return None
    return dtype, int_dom(r), r


def cast_code(v, target):
    """(code, dom, range) of v cast to target, or None when the cast could lose the value (an
    unbounded float to an integer, an integer range the target cannot hold)."""
    to = "{a}.to(torch.%s)" % target
    if target == BOOL:
        return to, ANY, (0, 1)
    if v.dtype in FLOATS:
        if target in FLOATS:
            return to, v.dom, None
        if v.dom != UNIT:
            return None
        if target == U8:  # a negative float is out of uint8's range: |x| first
            return "torch.abs({a}).to(torch.uint8)", UNIT, (0, 1)
        return to, UNIT, (-1, 1)
    r = v.range
    if target in FLOATS:
        if target == F16 and not fits_type(r, F16):
            return None
        return to, (UNIT if r[0] >= -1 and r[1] <= 1 else POS if r[0] >= 1 else ANY), None
    return (to, int_dom(r), r) if fits_type(r, target) else None


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
# An operator split in two by its modes (pad, interpolate) is drawn half as often each.
RARE = {"sinh": 0.02, "cosh": 0.02, "trunc": 0.02, "frac": 0.02, "logical_not": 0.02,
        "pad": 0.5, "pad_reflect": 0.5, "interpolate_nearest": 0.5, "interpolate_bilinear": 0.5}


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
    if dtype != ANYTYPE and v.dtype != dtype:
        return False
    return dom == ANY or v.dom == dom


class _Graph:
    """A spec being built: its values (Val), graph inputs and nodes."""

    def __init__(self, rng, max_elements, dtypes, main=None):
        self.rng, self.max_elements, self.dtypes = rng, max_elements, dtypes
        self.main = main  # a filtered model's main type (generate_filtered); None: unfiltered
        self.vals, self.inputs, self.nodes, self.used = [], [], [], set()

    def new_input(self, shape, dtype, dom):
        r = None if dtype in FLOATS else input_range(dtype, dom)
        dom = (POS if dom == POS else ANY) if r is None else ANY if dtype == BOOL else int_dom(r)
        v = Val(len(self.vals), shape, dtype, dom, r)
        self.vals.append(v)
        entry = {"id": v.id, "shape": list(shape), "dtype": dtype, "dom": dom}
        if r is not None:
            entry["range"] = list(r)
        self.inputs.append(entry)
        return v

    def add_node(self, name, args, shape, res, code, params, t):
        dtype, dom, r = res
        v = Val(len(self.vals), shape, dtype, dom, r)
        self.vals.append(v)
        self.used.update(a.id for a in args)
        node = {"op": name, "args": [a.id for a in args], "out": v.id, "shape": list(shape),
                "dtype": dtype, "t": t, "dom": dom, "code": code,
                "params": [[list(p[0]), p[1], I64 if p[1].startswith("idx:") else t]
                           for p in params],
                "pseed": self.rng.randrange(1 << 30)}
        if r is not None:
            node["range"] = list(r)
        self.nodes.append(node)
        return v

    def cast(self, v, target):
        """A cast node of v to target, or None."""
        c = cast_code(v, target)
        if c is None:
            return None
        code, dom, r = c
        return self.add_node("cast", [v], v.shape, (target, dom, r), code, [], target)

    def cast_into(self, dtype, dom, args):
        """A cast node giving a value of dtype and domain from an earlier value, or None."""
        srcs = []
        for v in self.vals:
            c = v.dtype != dtype and cast_code(v, dtype)
            if c and (dom == ANY or c[1] == dom):
                srcs.append(v)
        if args:
            same = [v for v in srcs if v.shape == args[0].shape]
            srcs = same or srcs
        return self.cast(self.rng.choice(srcs), dtype) if srcs else None

    def pick_args(self, types, doms, room):
        """One value per input (an earlier value, a fresh graph input or, with room for two
        more nodes, a cast of an earlier value), or None: redraw the operator."""
        rng, args = self.rng, []
        for k, (dt, dom) in enumerate(zip(types, doms)):
            cands = [v for v in self.vals if _fits(v, dt, dom)]
            if k > 0 and args:  # prefer a partner of the same shape (broadcasting is rarer)
                same = [v for v in cands if v.shape == args[0].shape]
                if same and rng.random() < 0.7:
                    cands = same
            if not cands or (dt != ANYTYPE and rng.random() < 0.03):
                if not cands and dt not in self.dtypes:
                    return None  # e.g. no bool value yet and bool not requested
                v = None
                # A filtered model's other types enter through casts of what it has.
                prefer_cast = self.main is not None and dt != self.main
                if not cands and room >= 2 and (prefer_cast or rng.random() < 0.5):
                    v = self.cast_into(dt, dom, args)
                    room -= v is not None
                if v is None:
                    shape = args[0].shape if args else _rand_shape(rng, self.max_elements)
                    v = self.new_input(shape, dt, dom)
                args.append(v)
                continue
            unused = [v for v in cands if v.id not in self.used]
            pool = unused if unused and rng.random() < 0.6 else cands
            # Recent values first: deeper graphs.
            args.append(pool[-1 - min(int(rng.expovariate(0.4)), len(pool) - 1)])
        return args

    def spec(self, seed, nodes):
        out = {"seed": seed, "nodes": nodes, "inputs": self.inputs, "body": self.nodes}
        if self.main is not None:
            out["main"] = self.main
        return out


def _fits_size(out, max_elements):
    shape, params = out[0], out[4]
    if numel(shape) > max_elements or numel(shape) == 0 or len(shape) > 5:
        return False
    return all(numel(p[0]) <= max_elements for p in params)


# The weight of an integer or bool type for an operator whose result torch promotes to float32
# (FLOAT_OUT), against 1 for any other type. NNSmith's operators keep their input's type, and
# torch.onnx 1.13 exports such a node without the cast (an invalid model: ONNX's Sin takes no
# integers): drawn rarely, so that the exporter's refusal does not hide the rest of a model.
PROMOTING = 0.005


def _node_type(rng, name, dtypes):
    """The node's type T (None when the operator has no T input), or False: no requested type
    fits the operator."""
    if T not in OPS[name][0]:
        return None
    choices = [d for d in dtypes if d in SUPPORT[name]]
    if not choices:
        return False
    weights = [PROMOTING if name in FLOAT_OUT and d not in FLOATS else 1.0 for d in choices]
    x = rng.random() * sum(weights)
    for d, w in zip(choices, weights):
        x -= w
        if x < 0:
            return d
    return choices[-1]


def generate(seed, nodes, max_elements=1 << 16, dtypes=(F32,)):
    """A spec with exactly `nodes` operators (dict: inputs, nodes, outputs) over the requested
    types (dtype_list(dtypes): ("all",) names NNSmith's nine)."""
    rng = random.Random("convfail-synth:%d:%d" % (seed, nodes))
    dtypes = dtype_list(dtypes)
    names = sorted(OPS)
    cumulative, total = [], 0.0
    for n in names:
        total += RARE.get(n, 1.0)
        cumulative.append(total)
    g = _Graph(rng, max_elements, dtypes)
    for t in dtypes:  # one graph input of each requested type
        g.new_input(_rand_shape(rng, max_elements), t, ANY)
    while len(g.nodes) < nodes:
        name = _draw_op(rng, names, cumulative)
        t = _node_type(rng, name, dtypes)
        if t is not False:
            _try_node(g, name, t, nodes)
    return g.spec(seed, nodes)


def _try_node(g, name, t, nodes):
    """Adds a node of operator `name` and type t (None: no T input) to g when its inputs, shape
    and range fit; else nothing (the caller redraws). A cast goes to a random requested type."""
    rng, dtypes = g.rng, g.dtypes
    in_types, doms, build = OPS[name]
    args = g.pick_args([t if x == T else x for x in in_types], doms, nodes - len(g.nodes))
    if args is None or len(g.nodes) >= nodes:
        return
    if name == "cast":
        targets = [d for d in dtypes if d != args[0].dtype and cast_code(args[0], d)]
        if targets:
            g.cast(args[0], targets[rng.randrange(len(targets))])
        return
    out = build(rng, [a.shape for a in args])
    if not out or not _fits_size(out, g.max_elements):
        return
    shape, built, dom, code, params = out
    res = node_result(name, t, args, shape, built, dom, params)
    if res is not None:
        g.add_node(name, args, shape, res, code, params, t)


# ---------------------------------------------------------------- drawing from the support matrix

# The share of a filtered model's nodes that may take a type other than its main one (drawn only
# where the matrix says the pair works); a value of that type enters through an explicit cast.
OTHER_TYPES = 0.1


def measured_types(name):
    """The types the support matrix measures operator `name` over: NNSmith's nine for an
    operator with a generic input, else its fixed input type (bool for the logical ones)."""
    ins = OPS[name][0]
    if T in ins:
        return ALL_DTYPES
    fixed = [x for x in ins if x not in (T, ANYTYPE)]
    return (fixed[0],) if fixed else ()


def support_table():
    """Every operator the matrix measures (cast left out: a value changes type through it), with
    the types measured and those torch 1.13 eager takes (SUPPORT): what `convfail test support`
    runs, one single-node model per pair eager takes."""
    out = []
    for name in sorted(OPS):
        types = measured_types(name)
        if not types:
            continue
        eager = SUPPORT.get(name, frozenset(types))
        out.append({"op": name, "types": list(types), "eager": [t for t in types if t in eager]})
    return out


def main_dtype(spec):
    """A spec's main type: the one a filtered draw chose, else (an unfiltered or older spec) the
    type most of its nodes were drawn in (the first in ALL_DTYPES order on a tie); None for no
    node."""
    if spec.get("main") in ALL_DTYPES:
        return spec["main"]
    counts = {}
    for n in spec.get("body", []):
        t = n.get("t") or n.get("dtype")  # the node's type (an older spec: its output's)
        counts[t] = counts.get(t, 0) + 1
    ranked = [d for d in ALL_DTYPES if d in counts]
    return max(ranked, key=lambda d: counts[d]) if ranked else None


def _filtered_type(rng, name, main, dtypes, support):
    """A filtered node's type T (None: the operator has no T input and its fixed type works),
    or False: redraw. The main type with weight 1 - OTHER_TYPES, the others share OTHER_TYPES;
    a pair the matrix does not list as working is never drawn."""
    works = support.get(name, ())
    if T not in OPS[name][0]:
        fixed = measured_types(name)
        return None if fixed and fixed[0] in works and fixed[0] in dtypes else False
    others = max(1, len(dtypes) - 1)
    x = rng.random()
    for d in dtypes:
        if d not in SUPPORT[name] or d not in works:
            continue
        w = 1 - OTHER_TYPES if d == main else OTHER_TYPES / others
        if name in FLOAT_OUT and d not in FLOATS:
            w *= PROMOTING
        x -= w
        if x < 0:
            return d
    return False


def generate_filtered(seed, nodes, support, max_elements=1 << 16, dtypes=(F32,)):
    """A spec with exactly `nodes` operators drawn from the support matrix `support` (operator ->
    the types it works with end to end on the release under test): a main type drawn among the
    requested ones that some operator works with, most nodes of that type, the others of a
    requested type their operator works with (OTHER_TYPES), entering through casts. ValueError
    when no requested type works with any operator."""
    rng = random.Random("convfail-synth-filtered:%d:%d" % (seed, nodes))
    dtypes = dtype_list(dtypes)
    usable = [d for d in dtypes if any(d in support.get(n, ()) for n in OPS)]
    if not usable:
        raise ValueError("the support matrix lists no working operator for %s" % ", ".join(dtypes))
    main = usable[rng.randrange(len(usable))]
    names = sorted(OPS)
    cumulative, total = [], 0.0
    for n in names:
        total += RARE.get(n, 1.0)
        cumulative.append(total)
    g = _Graph(rng, max_elements, dtypes, main)
    g.new_input(_rand_shape(rng, max_elements), main, ANY)
    for _ in range(200 * nodes + 1000):  # bounded: a matrix with few working pairs may not fit
        if len(g.nodes) >= nodes:
            break
        name = _draw_op(rng, names, cumulative)
        t = None if name == "cast" else _filtered_type(rng, name, main, dtypes, support)
        if t is not False:
            _try_node(g, name, t, nodes)
    if len(g.nodes) < nodes:
        raise ValueError("the support matrix leaves too few working operators for a model of %d "
                         "nodes of %s" % (nodes, main))
    return g.spec(seed, nodes)


# Shapes `single` tries, in turn, until the operator's builder takes one.
SINGLE_SHAPES = [(2, 4, 4, 4), (2, 4, 6), (1, 4, 4), (2, 1, 4, 4), (4, 4), (1, 4), (6,)]


def single(name, t, variant=0, strict=True):
    """A spec of one node of operator `name` and type t on fresh graph inputs, or None when
    the operator has no such node (strict: also when SUPPORT or RANGE refuses the pair). For
    the table test and as the smallest program of an operator/type pair; `variant` draws
    another of the builder's choices (a mode, a dimension)."""
    in_types, doms, build = OPS[name]
    if name == "cast" or (strict and T in in_types and t not in SUPPORT[name]):
        return None
    rng = random.Random("convfail-synth-single:%s:%s:%d" % (name, t, variant))
    shapes = SINGLE_SHAPES[variant % len(SINGLE_SHAPES):] + SINGLE_SHAPES
    for shape in shapes:
        g = _Graph(rng, 1 << 16, dtype_list([t]))
        args = [g.new_input(shape, t if x == T else x, dom) for x, dom in zip(in_types, doms)]
        out = build(rng, [a.shape for a in args])
        if not out:
            continue
        shape, built, dom, code, params = out
        res = node_result(name, t, args, shape, built, dom, params)
        if res is None and strict:
            return None
        g.add_node(name, args, shape, res or (out_type(name, t, built), dom, None), code,
                   params, t)
        return g.spec(variant, 1)
    return None


def single_cast(src, dom, target):
    """A spec of one cast of a fresh graph input of type src and domain dom to target, or None
    when cast_code refuses it."""
    g = _Graph(random.Random("convfail-synth-cast:%s:%s:%s" % (src, dom, target)), 1 << 16,
               ALL_DTYPES)
    v = g.new_input((2, 3, 4), src, dom)
    return g.spec(0, 1) if src != target and g.cast(v, target) else None


def restrict(spec, keep):
    """The spec with only the nodes at positions `keep`; values a kept node reads whose producer
    was dropped become graph inputs (same shape, dtype, domain, range)."""
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
                continue
            src = by_out[a]
            entry = {"id": a, "shape": src["shape"], "dtype": src["dtype"],
                     "dom": POS if src["dom"] == POS else ANY}
            if src.get("range") is not None:  # drawn inside the range, at most 2^62 across
                entry["dom"] = src["dom"]
                entry["range"] = [max(src["range"][0], -(1 << 62)), min(src["range"][1], 1 << 62)]
            inputs.append(entry)
    inputs.sort(key=lambda i: i["id"])
    out = {"seed": spec["seed"], "nodes": len(body), "inputs": inputs, "body": body, "kept": keep}
    if "main" in spec:
        out["main"] = spec["main"]
    return out


def outputs_of(spec):
    """Values no kept node reads: the model's outputs (at most 8, the last ones)."""
    read = {a for n in spec["body"] for a in n["args"]}
    outs = [n["out"] for n in spec["body"] if n["out"] not in read]
    return outs[-8:] if outs else [spec["body"][-1]["out"]] if spec["body"] else []


PRELUDE = '''import torch
import torch.nn.functional as F


def _param(shape, seed, kind, dtype="float32"):
    g = torch.Generator().manual_seed(seed)
    if kind.startswith("idx:"):
        return torch.randint(0, int(kind[4:]), shape, generator=g)
    t = getattr(torch, dtype)
    if t == torch.bool:
        return torch.nn.Parameter(torch.rand(shape, generator=g) < 0.5, requires_grad=False)
    if not t.is_floating_point:  # integer weights in [-2, 2] ([0, 2] uint8), "pos" in [1, 2]
        lo = 1 if kind == "pos" else 0 if t == torch.uint8 else -2
        x = torch.randint(lo, 3, shape, generator=g).to(t)
        return torch.nn.Parameter(x, requires_grad=False)
    x = torch.rand(shape, generator=g)
    if kind == "pos":
        return torch.nn.Parameter((x + 0.5).to(t), requires_grad=False)
    return torch.nn.Parameter(((x * 2 - 1) * 0.5).to(t), requires_grad=False)

'''

MAKE_INPUTS = '''

def make_model():
    return Model().eval()


def make_inputs(k=0):
    g = torch.Generator().manual_seed(%d * 1000 + k)
    out = []
    for shape, dtype, dom, lohi in INPUTS:
        t = getattr(torch, dtype)
        if t == torch.bool:
            out.append(torch.rand(shape, generator=g) < 0.5)
        elif t.is_floating_point:
            x = torch.rand(shape, generator=g)
            out.append((x + 0.5 if dom == "pos" else x * 2 - 1).to(t))
        else:
            out.append(torch.randint(lohi[0], lohi[1] + 1, shape, generator=g).to(t))
    return tuple(out)


if __name__ == "__main__":
    # python3 program.py [OUT.onnx [OPSET]]: runs the model eagerly on input set 0, then exports
    # it as the campaign did (torch.onnx.export, default opset 16) to OUT.onnx (program.onnx).
    import sys
    model, inputs = make_model(), make_inputs(0)
    with torch.no_grad():
        outputs = model(*inputs)
    for i, o in enumerate(outputs if isinstance(outputs, (tuple, list)) else (outputs,)):
        print("output {}: shape {}, {}".format(i, tuple(o.shape), o.dtype))
    onnx_file = sys.argv[1] if len(sys.argv) > 1 else "program.onnx"
    opset = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    torch.onnx.export(model, inputs, onnx_file, opset_version=opset)
    print("exported to {} (opset {})".format(onnx_file, opset))
'''


def _param_line(pname, shape, seed, kind, dtype):
    args = "%r, %d, %r" % (tuple(shape), seed, kind)
    if kind.startswith("idx:"):
        return "        self.register_buffer(%r, _param(%s))" % (pname, args)
    if dtype != F32:
        args += ", %r" % dtype
    return "        self.%s = _param(%s)" % (pname, args)


def render(spec):
    """The spec as a short, self-contained Python program: Model, INPUTS, make_model,
    make_inputs(k)."""
    lines = [PRELUDE, "class Model(torch.nn.Module):", "    def __init__(self):",
             "        super().__init__()"]
    body = []
    pnames = 0
    for n in spec["body"]:
        names = {}
        for j, p in enumerate(n["params"]):
            pname = "p%d" % pnames
            pnames += 1
            # A spec of an older generator names no weight type: float32.
            ptype = p[2] if len(p) > 2 else F32
            lines.append(_param_line(pname, p[0], n["pseed"] + j, p[1], ptype))
            names["p%d" % j] = "self." + pname
        a = ["v%d" % x for x in n["args"]] + ["", "", ""]
        expr = n["code"].format(a=a[0], b=a[1], c=a[2], **names)
        body.append("        v%d = %s  # %s %s %s" % (n["out"], expr, n["op"], tuple(n["shape"]),
                                                     n["dtype"]))
    ins = ", ".join("v%d" % i["id"] for i in spec["inputs"])
    outs = outputs_of(spec)
    lines.append("")
    lines.append("    def forward(self, %s):" % ins)
    lines.extend(body)
    lines.append("        return %s" % ", ".join("v%d" % o for o in outs) + ("," if len(outs) == 1 else ""))
    lines.append("")
    lines.append("")
    # An older spec's int64 input has no range: [0, 3], as that generator drew it.
    lines.append("INPUTS = %r  # (shape, dtype, domain, integer range)" % [
        (tuple(i["shape"]), i["dtype"], i["dom"],
         tuple(i.get("range") or (0, 3)) if i["dtype"] not in FLOATS else None)
        for i in spec["inputs"]])
    lines.append("")
    lines.append(MAKE_INPUTS % spec["seed"])
    return "\n".join(lines)
