#!/usr/bin/python3
"""convfail's warm torch worker for `convfail test` (runs inside the sandbox, one per job).

One JSON request per stdin line, one JSON reply per stdout line (ASCII only: every text is
escaped, so error text that is not UTF-8 survives). torch is imported once.

{"op":"hello"} -> {"ok":true,"torch":..,"onnx":..,"torchvision":..,"torchaudio":..}
{"op":"models","libraries":["torchvision","torchaudio","text"]}
  -> {"ok":true,"models":[{"name":..,"family":..,"library":..},..]}
{"op":"model","out":DIR,"source":"synthetic"|"torchvision"|"torchaudio"|"text"|"script","seed":S,
 "nodes":N,"max_elements":M,"dtypes":[..],"inputs":K,"opset":16,
 "name":ARCH,"family":F,"image":SIDE (torchvision) | "name":ARCH (torchaudio, text) |
 "file":PATH (script) | "spec":PATH,"keep":[..] (a cut synthetic spec) |
 "single":{"op":NAME,"dtype":T,"variant":V} (one node, synth.single: a cell of the matrix) |
 "support":{OP:[T,..]} (synthetic drawn from the matrix: only pairs that work)}
  -> {"ok":true,"outcome":null|"invalid"|"conversion_failure","stage":..,"error":TEXT,
      "error_type":..,"ops":[..],"edges":[[a,b],..],"nodes":n,"durations":{..},"outputs":n,
      "dtypes":[..],"main_dtype":T (synthetic: the types its spec uses, its main type)}
{"op":"support_table"} -> {"ok":true,"generator":G,"ops":[{"op":..,"types":[..],"eager":[..]},..]}
  The model's files go to DIR: program.py (synthetic), spec.json, model.onnx (torch.onnx.export
  writes it there as a user's export does: a model over 2 GiB with its weights in external data
  files beside it), and per input set k: set_k/input_i.pb, set_k/output_i.pb (the eager
  reference). outcome null: exported, ready for ONNX Runtime.

Stage markers on stderr ("convfail-stage NAME") tell convfail where a worker that died was.
"""

import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import audio_zoo  # noqa: E402
import synth  # noqa: E402
import text_zoo  # noqa: E402
from child_tensors import flatten as _flatten_tree  # noqa: E402  (exec/python, on PYTHONPATH)
from child_tensors import graph_of, save_tensors  # noqa: E402

MAX_TEXT = 2000


def safe(s):
    """Text fit for the reply: str, cut, lone surrogates and odd bytes escaped."""
    if isinstance(s, bytes):
        s = s.decode("utf-8", "backslashreplace")
    s = str(s)
    if len(s) > MAX_TEXT:
        s = s[:MAX_TEXT] + "..."
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def stage(name):
    sys.stderr.write("convfail-stage %s\n" % name)
    sys.stderr.flush()


def exc_text(e):
    return "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__


def out_of_memory(e):
    """True when an exception is an allocation failure under the worker's address-space limit."""
    if isinstance(e, MemoryError):
        return True
    text = str(e)
    return "can't allocate memory" in text or "Could not allocate bytes object" in text \
        or "std::bad_alloc" in text


def failure_type(e):
    return "out_of_memory" if out_of_memory(e) else type(e).__name__


def flatten(obj, out):
    """The tensors of obj in torch.onnx's output order (dict values in insertion order: a
    detection model's boxes, scores, labels are graph outputs 0, 1, 2)."""
    return _flatten_tree(obj, out)


def bad_values(tensors):
    import torch
    for t in tensors:
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            return True
    return False


def same(a, b):
    import torch
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.is_floating_point():
            if not bool(torch.equal(torch.nan_to_num(x), torch.nan_to_num(y))):
                return False
        elif not bool(torch.equal(x, y)):
            return False
    return True


class Built:
    def __init__(self, model, input_sets, nodes, program=None, spec=None):
        self.model, self.input_sets, self.nodes = model, input_sets, nodes
        self.program, self.spec = program, spec


def build_synthetic(req):
    if req.get("spec"):
        with open(req["spec"]) as f:
            spec = json.load(f)
        if req.get("keep") is not None:
            spec = synth.restrict(spec, req["keep"])
    elif req.get("single"):  # one cell of the support matrix: one operator on one type
        name, dtype = req["single"].get("op"), req["single"].get("dtype")
        variant = int(req["single"].get("variant", 0))
        spec = synth.single(name, dtype, variant, strict=False) if name in synth.OPS else None
        if spec is None:
            raise ValueError("no one-node model of %r on %r" % (name, dtype))
    elif req.get("support") is not None:  # drawn from the measured support matrix
        spec = synth.generate_filtered(int(req["seed"]), int(req["nodes"]), req["support"],
                                       int(req.get("max_elements", 1 << 16)),
                                       tuple(req.get("dtypes") or ["float32"]))
    else:
        spec = synth.generate(int(req["seed"]), int(req["nodes"]),
                              int(req.get("max_elements", 1 << 16)),
                              tuple(req.get("dtypes") or ["float32"]))
    program = synth.render(spec)
    ns = {"__name__": "convfail_synth"}
    exec(compile(program, "program.py", "exec"), ns)
    k = int(req.get("inputs", 3))
    return Built(ns["make_model"](), [ns["make_inputs"](i) for i in range(k)], len(spec["body"]),
                 program, spec)


def build_torchvision(req):
    """An architecture with random weights (never downloaded). `image` (test run --image-size):
    the input side instead of each family's default (224, detection's internal 800, video 112,
    optical flow 128), detection models resizing to it, a vision transformer built for it (rounded
    up to its patch); maxvit keeps 224 (its partitions need it), inception_v3 takes at least 75."""
    import torch
    import torchvision
    name = req["name"]
    torch.manual_seed(int(req.get("seed", 0)))
    fn = torchvision.models.get_model_builder(name)
    kwargs = {"weights": None}
    family = req.get("family", "")
    if family in ("detection", "segmentation"):
        kwargs["weights_backbone"] = None
    side = int(req.get("image", 0))
    size, video, flow = 224, 112, 128
    if side:
        size, video, flow = side, side, max(64, side // 8 * 8)
        if family == "detection" and not name.startswith("ssd"):  # SSD has a fixed size
            kwargs.update(min_size=side, max_size=side)
        if name.startswith("vit_"):
            patch = int(name.rsplit("_", 1)[1])
            size = -(-side // patch) * patch
            kwargs["image_size"] = size
        elif name.startswith("maxvit"):
            size = 224
        elif name == "inception_v3":
            size = max(side, 75)
    model = fn(**kwargs).eval()
    g = torch.Generator().manual_seed(int(req.get("seed", 0)))
    sets = []
    for _ in range(int(req.get("inputs", 3))):
        if family == "video":
            sets.append((torch.rand((1, 3, 4, video, video), generator=g),))
        elif family == "optical_flow":
            sets.append((torch.rand((1, 3, flow, flow), generator=g),
                         torch.rand((1, 3, flow, flow), generator=g)))
        elif family == "detection":
            sets.append(([torch.rand((3, size, size), generator=g)],))
        else:
            sets.append((torch.rand((1, 3, size, size), generator=g),))
    nodes = sum(1 for _ in model.modules())
    return Built(model, sets, nodes)


def build_zoo(req):
    """A torchaudio or text architecture (audio_zoo, text_zoo): random weights, eval mode, fixed
    seed, the family's dummy inputs."""
    zoo = audio_zoo if req.get("source") == "torchaudio" else text_zoo
    name = req["name"]
    if name not in zoo.ZOO:
        raise KeyError("no %s architecture %r" % (req.get("source"), name))
    model, sets = zoo.build(name, int(req.get("inputs", 3)), int(req.get("seed", 0)))
    return Built(model, sets, sum(1 for _ in model.modules()))


def build_script(req):
    path = req["file"]
    with open(path, "rb") as f:
        code = f.read()
    ns = {"__name__": "convfail_script", "__file__": path}
    exec(compile(code, os.path.basename(path), "exec"), ns)
    import torch
    torch.manual_seed(int(req.get("seed", 0)))
    model = ns["make_model"]()
    if isinstance(model, torch.nn.Module):
        model = model.eval()
    sets = []
    for k in range(int(req.get("inputs", 3))):
        torch.manual_seed(int(req.get("seed", 0)) * 1000 + k)
        x = ns["make_inputs"]()
        sets.append(tuple(x) if isinstance(x, (list, tuple)) else (x,))
    nodes = sum(1 for _ in model.modules()) if isinstance(model, torch.nn.Module) else 0
    return Built(model, sets, nodes)


def handle_model(req):
    import torch
    import onnx

    out = req["out"]
    os.makedirs(out, exist_ok=True)
    reply = {"ok": True, "outcome": None, "durations": {}}
    d = reply["durations"]
    t = time.monotonic()
    stage("build")
    source = req.get("source", "synthetic")
    try:
        built = {"synthetic": build_synthetic, "torchvision": build_torchvision,
                 "torchaudio": build_zoo, "text": build_zoo, "script": build_script}[source](req)
    except Exception as e:
        return dict(reply, outcome="invalid", stage="build", error=safe(exc_text(e)),
                    error_type=failure_type(e))
    d["build"] = round(time.monotonic() - t, 4)
    reply["nodes"] = built.nodes
    if built.spec is not None:  # the types the model uses (the report's per-type table)
        reply["dtypes"] = synth.spec_dtypes(built.spec)
        reply["main_dtype"] = synth.main_dtype(built.spec)
    if built.program is not None:
        with open(os.path.join(out, "program.py"), "w") as f:
            f.write(built.program)
        with open(os.path.join(out, "spec.json"), "w") as f:
            json.dump(built.spec, f, sort_keys=True)

    # Eager on every input set; NaN/Inf or a second run that differs = invalid.
    stage("eager")
    t = time.monotonic()
    refs = []
    try:
        with torch.no_grad():
            for k, args in enumerate(built.input_sets):
                torch.manual_seed(0)
                refs.append(flatten(built.model(*args), []))
            torch.manual_seed(0)
            again = flatten(built.model(*built.input_sets[0]), [])
    except Exception as e:
        return dict(reply, outcome="invalid", stage="eager", error=safe(exc_text(e)),
                    error_type=failure_type(e))
    d["eager"] = round(time.monotonic() - t, 4)
    if any(bad_values(r) for r in refs):
        return dict(reply, outcome="invalid", stage="eager", error="reference output holds NaN or Inf",
                    error_type="invalid")
    if not same(refs[0], again):
        return dict(reply, outcome="invalid", stage="eager",
                    error="nondeterministic: two eager runs differ", error_type="invalid")
    reply["outputs"] = len(refs[0])

    # Export (input set 0 as the example) to a file, as a user does: a model over 2 GiB is written
    # with its weights in external data files beside model.onnx. Inputs and outputs are named by
    # position, so that inputs the exporter pruned (they do not reach an output) are told apart.
    stage("export")
    t = time.monotonic()
    path = os.path.join(out, "model.onnx")
    before = set(os.listdir(out))
    n_in = len(flatten(list(built.input_sets[0]), []))
    in_names = ["input_%d" % i for i in range(n_in)]
    out_names = ["output_%d" % i for i in range(len(refs[0]))]
    try:
        torch.onnx.export(built.model, tuple(built.input_sets[0]), path,
                          opset_version=int(req.get("opset", 16)), do_constant_folding=True,
                          input_names=in_names, output_names=out_names)
    except Exception as e:
        d["export"] = round(time.monotonic() - t, 4)
        remove_new_files(out, before)  # no half-written model is taken for an exported one
        return dict(reply, outcome="conversion_failure", stage="export", error=safe(exc_text(e)),
                    error_type=failure_type(e))
    d["export"] = round(time.monotonic() - t, 4)
    if req.get("perturb"):  # test hook: a deliberately wrong model (mismatch on purpose)
        perturb(path)
    if req.get("external_data"):  # test hook: weights in external data however small the model
        save_with_external_data(path)
    stage("inputs")
    model = onnx.load(path, load_external_data=False)
    reply["ops"], reply["edges"] = graph_of(model)
    inits = {i.name for i in model.graph.initializer}
    graph_in = [i.name for i in model.graph.input if i.name not in inits]
    graph_out = [o.name for o in model.graph.output]
    if any(n not in in_names for n in graph_in) or graph_out != out_names[:len(graph_out)] \
            or len(graph_out) != len(out_names):
        return dict(reply, outcome="conversion_failure", stage="export",
                    error="exported graph's inputs or outputs differ from the model's: %s -> %s"
                    % (graph_in[:8], graph_out[:8]), error_type="io_mismatch")
    for k, args in enumerate(built.input_sets):
        ins = flatten(list(args), [])
        fed = [ins[in_names.index(n)] for n in graph_in]
        folder = os.path.join(out, "set_%d" % k)
        for tensors, names, prefix in ((fed, graph_in, "input"), (refs[k], graph_out, "output")):
            _, why = save_tensors(tensors, names, folder, prefix)
            if why:
                return dict(reply, outcome="invalid", stage="inputs", error=safe(why),
                            error_type="invalid")
    reply["sets"] = len(built.input_sets)
    reply["stage"] = "exported"
    return reply


def remove_new_files(folder, before):
    for name in set(os.listdir(folder)) - before:
        p = os.path.join(folder, name)
        if os.path.isfile(p) and not os.path.islink(p):
            os.unlink(p)


def perturb(path):
    """Adds 1 to the model's first output (an Add node before it), keeping it valid; the model is
    written again in place (external data, if any, stays where it is)."""
    import onnx
    from onnx import helper, TensorProto
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    out = g.output[0]
    elem = out.type.tensor_type.elem_type
    if elem != TensorProto.FLOAT:
        return
    old = out.name
    new = old + "_convfail_unperturbed"
    for n in g.node:
        for i, o in enumerate(n.output):
            if o == old:
                n.output[i] = new
        for i, x in enumerate(n.input):
            if x == old:
                n.input[i] = new
    g.initializer.append(helper.make_tensor("convfail_one", TensorProto.FLOAT, [], [1.0]))
    g.node.append(helper.make_node("Add", [new, "convfail_one"], [old]))
    onnx.save_model(m, path)


def save_with_external_data(path):
    """Writes the model again with every initializer that has raw data in its own file beside
    it, named after the tensor as torch names the files of a model over 2 GiB (characters not
    fit for a file name replaced by '_')."""
    import onnx
    from onnx import external_data_helper
    m = onnx.load(path, load_external_data=False)
    taken = set(os.listdir(os.path.dirname(path)))
    for k, t in enumerate(m.graph.initializer):
        if t.HasField("raw_data"):
            name = "".join(c if c.isalnum() or c in "._-" else "_" for c in t.name).lstrip(".")
            name = name if name and name not in taken else "tensor_%d" % k
            taken.add(name)
            external_data_helper.set_external_data(t, location=name)
    onnx.save_model(m, path)


TV_FAMILIES = ["detection", "segmentation", "video", "optical_flow", "quantization"]


def torchvision_models():
    """Every architecture torchvision lists, with its family (classification unless one of the
    submodules lists it); quantized ones are left out (they need quantized engines)."""
    import torchvision.models as tm
    fam = {}
    for f in TV_FAMILIES:
        mod = getattr(tm, f, None)
        if mod is not None:
            for n in tm.list_models(module=mod):
                fam.setdefault(n, f)
    out = []
    for n in sorted(tm.list_models()):
        f = fam.get(n, "classification")
        if f != "quantization":
            out.append({"name": n, "family": f})
    return out


def real_models(libraries):
    """The architectures of the libraries asked for, each with its family and library."""
    out = []
    for lib in libraries:
        if lib == "torchvision":
            listed = torchvision_models()
        elif lib == "torchaudio":
            if library_version("torchaudio") is None:
                raise RuntimeError("torchaudio is not installed (Debian's python3-torchaudio, "
                                   "scripts/install-deps.sh)")
            listed = audio_zoo.models()
        elif lib == "text":
            listed = text_zoo.models()
        else:
            raise ValueError("unknown library %r" % (lib,))
        out.extend(dict(m, library=lib) for m in listed)
    return out


def library_version(module):
    try:
        return __import__(module).__version__
    except Exception:
        return None


def handle(req):
    if req.get("op") == "hello":
        import onnx
        import torch
        return {"ok": True, "torch": torch.__version__, "onnx": onnx.__version__,
                "torchvision": library_version("torchvision"),
                "torchaudio": library_version("torchaudio")}
    if req.get("op") == "models":
        return {"ok": True, "models": real_models(req.get("libraries") or [])}
    if req.get("op") == "support_table":
        return {"ok": True, "generator": synth.GENERATOR, "ops": synth.support_table()}
    if req.get("op") == "crash":  # protocol test hook
        import ctypes
        ctypes.string_at(0)
    if req.get("op") == "model":
        return handle_model(req)
    return {"ok": False, "error": "unknown op"}


def main():
    real_stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # prints of torch or a script go to stderr; stdout carries only replies
    import torch
    torch.set_num_threads(1)
    import warnings
    warnings.filterwarnings("ignore")
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as e:
            reply = {"ok": False, "error": safe(exc_text(e)), "trace": safe(traceback.format_exc())}
        real_stdout.write(json.dumps(reply, ensure_ascii=True, default=str) + "\n")
        real_stdout.flush()
        stage("idle")


if __name__ == "__main__":
    main()
