#!/usr/bin/python3
"""Runs an untrusted PyTorch repro script and records what torch.onnx.export did.

Usage: harness.py SCRIPT OUTDIR [--workdir DIR] [--keep-workdir]

The script runs as __main__ in a fresh working directory (a new temp dir unless --workdir is
given; deleted afterwards). Every torch.onnx.export call is intercepted: the call runs as usual,
its exported file is copied to OUTDIR/export_<i>/model.onnx, its example inputs are saved as ONNX
TensorProto files (input_<k>.pb, named after the graph inputs), and the module is then run eagerly
on the same inputs with its outputs saved as output_<k>.pb (named after the graph outputs). The
result is written to OUTDIR/result.json and printed as one JSON line on stdout; the script's own
stdout goes to stderr.

While it runs, OUTDIR/phase holds the current phase (script, export, eager), so a supervisor that
kills a hung script can tell where it hung.

This is a best-effort guard, not a security boundary (the caller's sandbox is): an audit hook
refuses writes outside the working directory and OUTDIR, sockets other than AF_UNIX, and starting
processes; each refusal raises PermissionError in the script and is listed under "blocked".
"""

import io
import json
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from child_tensors import flatten as _flatten  # noqa: E402  (exec/python, on PYTHONPATH)
from child_tensors import save_tensors as _save_tensors  # noqa: E402

HARNESS_VERSION = 2  # 2: exceptions carry "traceback"
MAX_EXPORTS = 8
MAX_MESSAGE = 2000
MAX_TRACEBACK_LINES = 40  # longer tracebacks keep their first 30 and last 9 lines

_state = {
    "outdir": None,
    "workdir": None,
    "exports": [],
    "export_calls": 0,
    "blocked": [],
    "shims": [],
    "in_harness": 0,  # >0 while the harness itself writes files
}


def _write_phase(phase):
    try:
        _state["in_harness"] += 1
        with open(os.path.join(_state["outdir"], "phase"), "w") as f:
            f.write(phase)
    except OSError:
        pass
    finally:
        _state["in_harness"] -= 1


def _exc_info(exc, frame):
    msg = str(exc)
    if len(msg) > MAX_MESSAGE:
        msg = msg[:MAX_MESSAGE] + "..."
    info = {"type": type(exc).__name__, "message": msg, "frame": frame}
    mod = getattr(exc, "name", None)
    if isinstance(exc, ModuleNotFoundError) and mod:
        info["module"] = mod  # dotted: "onnx.optimizer" is missing although onnx is installed
    # The innermost frame outside the harness (a refusal is raised inside the audit hook).
    tb = [fr for fr in traceback.extract_tb(exc.__traceback__) if fr.filename != __file__]
    if tb:
        last = tb[-1]
        info["where"] = "%s:%s in %s" % (os.path.basename(last.filename), last.lineno, last.name)
    info["traceback"] = _traceback_text(tb)
    return info


def _traceback_text(frames):
    """The traceback as Python prints it, without the harness's and runpy's frames and without
    the last line (the exception itself, which "type" and "message" hold); files in the working
    directory are named relative to it (the script is "repro_script.py")."""
    lines = ["Traceback (most recent call last):"]
    workdir = _state["workdir"]
    for fr in frames:
        name = fr.filename
        if os.path.basename(name) == "runpy.py" or name == "<frozen runpy>":
            continue  # how the harness started the script
        if workdir and name.startswith(workdir + os.sep):
            name = os.path.relpath(name, workdir)
        lines.append('  File "%s", line %s, in %s' % (name, fr.lineno, fr.name))
        if fr.line:
            lines.append("    " + fr.line.strip()[:300])
    if len(lines) > MAX_TRACEBACK_LINES:
        lines = lines[:30] + ["  ... (%d lines)" % (len(lines) - 39)] + lines[-9:]
    return "\n".join(lines)


# ---------------------------------------------------------------- guard (audit hook)

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _allowed_path(path):
    if isinstance(path, int):
        return True  # an already open descriptor
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return True
    real = os.path.realpath(path)
    if real in ("/dev/null", "/dev/stdout", "/dev/stderr"):
        return True
    for root in (_state["workdir"], _state["outdir"]):
        if root and (real == root or real.startswith(root + os.sep)):
            return True
    return False


def _deny(what):
    if len(_state["blocked"]) < 50:
        _state["blocked"].append(what)
    raise PermissionError("convfail harness: blocked " + what)


def _audit(event, args):
    if _state["in_harness"]:
        return
    if event == "open":
        path, mode, flags = args
        writing = False
        if isinstance(mode, str):
            writing = any(c in mode for c in "wax+")
        elif isinstance(flags, int):
            writing = bool(flags & _WRITE_FLAGS)
        if writing and not _allowed_path(path):
            _deny("write outside working directory: %s" % (path,))
    elif event in ("os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate",
                   "os.utime", "shutil.rmtree"):
        if args and not _allowed_path(args[0]):
            _deny("%s outside working directory: %s" % (event, args[0]))
    elif event in ("os.rename", "os.link", "os.symlink", "shutil.move", "shutil.copyfile"):
        for p in args[:2]:
            if not _allowed_path(p):
                _deny("%s outside working directory: %s" % (event, p))
    elif event in ("socket.connect", "socket.sendto", "socket.bind"):
        sock = args[0]
        if getattr(sock, "family", None) != getattr(__import__("socket"), "AF_UNIX", None):
            _deny("network access (%s %s)" % (event, args[1] if len(args) > 1 else ""))
    elif event == "socket.getaddrinfo":
        _deny("network access (getaddrinfo %s)" % (args[0],))
    elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                   "os.fork", "os.forkpty", "pty.spawn"):
        _deny("starting a process (%s)" % event)


# ---------------------------------------------------------------- tensors


def _split_args(args):
    import torch

    if isinstance(args, torch.Tensor):
        return (args,), {}
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        return (args,), {}
    if args and isinstance(args[-1], dict):
        return args[:-1], dict(args[-1])
    return args, {}


def _ordered_kwargs(model, kwargs):
    import inspect

    try:
        fn = model.forward if hasattr(model, "forward") else model
        names = list(inspect.signature(fn).parameters)
        return [kwargs[n] for n in names if n in kwargs]
    except (TypeError, ValueError):
        return list(kwargs.values())


def _graph_io(path):
    import onnx

    model = onnx.load(path)
    inits = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in inits]
    outputs = [o.name for o in model.graph.output]
    opset = None
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            opset = imp.version
    return inputs, outputs, opset


# ---------------------------------------------------------------- export interception


def _copy_export_file(f, dest):
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as src, open(dest, "wb") as dst:
            dst.write(src.read())
        return True
    if isinstance(f, io.BytesIO):
        with open(dest, "wb") as dst:
            dst.write(f.getvalue())
        return True
    return False


def _eager(model, pos, kw, training_mode):
    import torch

    was_training = getattr(model, "training", None)
    try:
        if isinstance(model, torch.nn.Module) and training_mode is not True:
            model.train(False)
        with torch.no_grad():
            return model(*pos, **kw)
    finally:
        if isinstance(model, torch.nn.Module) and was_training is not None:
            model.train(was_training)


def _record_export(rec, model, args, f, kwargs):
    """After a successful export: save the file, inputs and eager outputs."""
    import torch

    folder = os.path.join(_state["outdir"], "export_%d" % rec["index"])
    os.makedirs(folder, exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")
    if not _copy_export_file(f, model_path):
        rec["note"] = "export target is neither a path nor BytesIO"
        return
    rec["model"] = os.path.relpath(model_path, _state["outdir"])
    try:
        inputs, outputs, opset = _graph_io(model_path)
        rec.update(input_names=inputs, output_names=outputs, opset=opset)
    except Exception as e:
        rec["model_load_error"] = _exc_info(e, "load")["message"]
        inputs, outputs = [], []

    pos, kw = _split_args(args)
    in_tensors = _flatten(list(pos), []) + _flatten(_ordered_kwargs(model, kw), [])
    rec["inputs_match_graph"] = len(in_tensors) == len(inputs)
    if rec["inputs_match_graph"]:
        files, err = _save_tensors(in_tensors, inputs, folder, "input")
        rec["inputs"] = [os.path.join(os.path.basename(folder), x) for x in files]
        if err:
            rec["inputs_match_graph"] = False
            rec["note"] = err
            for name in files:  # partial inputs are useless
                os.remove(os.path.join(folder, name))
            rec["inputs"] = []

    training = kwargs.get("training")
    training_mode = None
    if training is not None:
        training_mode = getattr(training, "name", str(training)) == "TRAINING" or training is True
    _write_phase("eager")
    try:
        torch.manual_seed(0)
        out = _eager(model, pos, kw, training_mode)
    except Exception as e:
        rec["eager_error"] = _exc_info(e, "eager")
        return
    finally:
        _write_phase("script")
    out_tensors = _flatten(out, [])
    rec["eager_output_count"] = len(out_tensors)
    rec["outputs_match_graph"] = len(out_tensors) == len(outputs)
    # Reference outputs only when they line up with the graph and were computed from the saved
    # inputs: a reader of this folder (input_N.pb / output_N.pb) compares them blindly.
    if not (rec["inputs_match_graph"] and rec["outputs_match_graph"]):
        return
    files, err = _save_tensors(out_tensors, outputs, folder, "output")
    rec["eager_outputs"] = [os.path.join(os.path.basename(folder), x) for x in files]
    if err:
        rec["outputs_match_graph"] = False
        rec["note"] = err
        for name in files:
            os.remove(os.path.join(folder, name))
        rec["eager_outputs"] = []


def _deliver(data, f):
    """Writes the exported bytes where the script asked (as torch.onnx.export would)."""
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "wb") as out:
            out.write(data)
    elif hasattr(f, "write"):
        f.write(data)


def _install_export_hook():
    import torch
    import torch.onnx
    import torch.onnx.utils

    import inspect

    original = torch.onnx.export
    known = set(inspect.signature(original).parameters)

    def export(model, args, f, *rest, **kwargs):
        # Arguments older releases took and this one removed (example_outputs,
        # use_external_data_format, enable_onnx_checker, ...) are dropped, as a maintainer re-running
        # the report would, and listed in "shims".
        for name in [k for k in kwargs if k not in known]:
            del kwargs[name]
            _state["shims"].append("dropped export argument " + name)
        index = _state["export_calls"]
        _state["export_calls"] += 1
        rec = {"index": index, "model": None}
        if index < MAX_EXPORTS:
            _state["exports"].append(rec)
        _write_phase("export")
        # Export into memory, then hand the bytes to the script's target: the harness keeps the
        # model whatever the target is (a path, /dev/null, an open file, a buffer).
        buffer = io.BytesIO()
        try:
            result = original(model, args, buffer, *rest, **kwargs)
        except BaseException as e:
            rec["error"] = _exc_info(e, "export")
            e._convfail_frame = "export"
            raise
        finally:
            _write_phase("script")
        if index < MAX_EXPORTS:
            _state["in_harness"] += 1
            try:
                _record_export(rec, model, args, buffer, kwargs)
            except Exception as e:
                rec["harness_error"] = _exc_info(e, "harness")["message"]
            finally:
                _state["in_harness"] -= 1
        _deliver(buffer.getvalue(), f)  # may be refused by the guard, like any write
        return result

    torch.onnx.export = export
    torch.onnx.utils.export = export


def _install_cuda_shim():
    """Scripts often move a model to CUDA; there is none here, so .cuda() stays on the CPU."""
    import torch

    def tensor_cuda(self, *a, **k):
        if "cuda" not in _state["shims"]:
            _state["shims"].append("cuda")
        return self

    def module_cuda(self, *a, **k):
        if "cuda" not in _state["shims"]:
            _state["shims"].append("cuda")
        return self

    torch.Tensor.cuda = tensor_cuda
    torch.nn.Module.cuda = module_cuda


# ---------------------------------------------------------------- main


def _run(script, result, stubs):
    import runpy

    with open(script, "rb") as f:
        source = f.read()
    try:
        compile(source, script, "exec")
    except (SyntaxError, ValueError) as e:
        info = {"type": type(e).__name__, "message": str(e)[:MAX_MESSAGE], "frame": "syntax"}
        if isinstance(e, SyntaxError):
            info["line"] = e.lineno
        kept = _salvage_truncated(source, e)
        if kept is None:
            result["exception"] = info
            return
        # Issue excerpts are often cut off: run the longest prefix that compiles and still
        # contains the export call.
        source = b"\n".join(source.split(b"\n")[:kept]) + b"\n"
        with open(script, "wb") as f:
            f.write(source)
        _state["shims"].append("truncated to line %d (syntax error at line %s)" % (kept, info.get("line")))

    _install_export_hook()
    _install_cuda_shim()
    _install_stubs(set(stubs))
    import torch

    torch.manual_seed(0)
    sys.argv = [script]
    _write_phase("script")
    try:
        runpy.run_path(script, init_globals=_implicit_imports(), run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            result["exception"] = {"type": "SystemExit", "message": str(e.code), "frame": _frame(e)}
    except BaseException as e:
        result["exception"] = _exc_info(e, _frame(e))


_EXPORT_CALL = re.compile(rb"onnx\s*\.\s*(utils\s*\.\s*)?_?export\s*\(|(^|[^\w.])_?export\s*\(")


def _salvage_truncated(source, error):
    """The number of leading lines that compile and call export, or None."""
    line = getattr(error, "lineno", None)
    if not isinstance(error, SyntaxError) or not line:
        return None
    lines = source.split(b"\n")
    for k in range(min(line - 1, len(lines)), max(0, line - 200), -1):
        prefix = b"\n".join(lines[:k])
        if not _EXPORT_CALL.search(prefix):
            return None  # cutting further cannot bring the export back
        try:
            compile(prefix, "<prefix>", "exec")
            return k
        except (SyntaxError, ValueError):
            continue
    return None


class StubbedModuleError(RuntimeError):
    pass


class _StubObject:
    """Stands for anything taken from a stubbed module: attributes chain, calls raise."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _StubObject(self._name + "." + attr)

    def __call__(self, *a, **k):
        raise StubbedModuleError(
            "%s is not installed here (convfail runs the exported model with ONNX Runtime itself)"
            % self._name)

    def __iter__(self):
        return iter(())


def _install_stubs(names):
    """Makes `import NAME` work for modules that are not installed (only those listed)."""
    import importlib.abc
    import importlib.machinery
    import types

    class Loader(importlib.abc.Loader):
        def create_module(self, spec):
            module = types.ModuleType(spec.name)
            module.__path__ = []  # a package, so submodules import too
            module.__getattr__ = lambda attr: _StubObject(spec.name + "." + attr)
            return module

        def exec_module(self, module):
            top = module.__name__.split(".")[0]
            if "stubbed module " + top not in _state["shims"]:
                _state["shims"].append("stubbed module " + top)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname.split(".")[0] in names:
                return importlib.machinery.ModuleSpec(fullname, Loader(), is_package=True)
            return None

    sys.meta_path.append(Finder())  # last: a module that is installed is found first


def _implicit_imports():
    """Names issue snippets use without importing them (torch, nn, F, np)."""
    import numpy
    import torch

    return {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "np": numpy}


def _frame(exc):
    if getattr(exc, "_convfail_frame", None):
        return exc._convfail_frame
    return "after_export" if _state["export_calls"] else "before_export"


def main(argv):
    import argparse
    import shutil
    import tempfile

    ap = argparse.ArgumentParser(description="Run a PyTorch repro script, intercepting torch.onnx.export.")
    ap.add_argument("script")
    ap.add_argument("outdir")
    ap.add_argument("--workdir", help="run here instead of a new temp dir (must exist, is not deleted)")
    ap.add_argument("--stub-modules", default="",
                    help="comma-separated modules that import as stubs when not installed "
                    "(calling into them raises StubbedModuleError)")
    ap.add_argument("--no-guard", action="store_true", help="no audit hook (for debugging only)")
    opts = ap.parse_args(argv)

    script = os.path.realpath(opts.script)
    outdir = os.path.realpath(opts.outdir)
    os.makedirs(outdir, exist_ok=True)
    made_workdir = opts.workdir is None
    workdir = tempfile.mkdtemp(prefix="convfail-script-") if made_workdir else opts.workdir
    workdir = os.path.realpath(workdir)
    # The script runs from a copy inside its working directory, so relative paths resolve there.
    local_script = os.path.join(workdir, "repro_script.py")
    shutil.copyfile(script, local_script)
    _state.update(outdir=outdir, workdir=workdir)

    result = {"harness_version": HARNESS_VERSION, "python_version": sys.version.split()[0]}
    started = time.monotonic()
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # the script's prints go to stderr; stdout carries only the result line
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    try:
        import onnx
        import torch

        result["torch_version"] = torch.__version__
        result["onnx_version"] = onnx.__version__
        if not opts.no_guard:
            sys.addaudithook(_audit)
        _run(local_script, result, [m for m in opts.stub_modules.split(",") if m])
    except BaseException as e:  # harness failure (torch missing, ...)
        result["exception"] = _exc_info(e, "harness")
    finally:
        _state["in_harness"] += 1  # the audit hook cannot be removed; let the harness finish
        sys.stdout.flush()
        os.chdir(outdir)
        if made_workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    result["exports"] = _state["exports"]
    result["export_calls"] = _state["export_calls"]
    result["blocked"] = _state["blocked"]
    result["shims"] = _state["shims"]
    result["duration_s"] = round(time.monotonic() - started, 3)
    text = json.dumps(result, default=str)
    with open(os.path.join(outdir, "result.json"), "w") as f:
        f.write(text)
    _write_phase("done")
    os.write(real_stdout, (text + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
