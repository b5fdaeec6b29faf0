#!/usr/bin/env python3
"""Writes data/sample/: a small, invented dataset of converter failure reports.

Every title, body and comment here was written for convfail (none is taken from a real issue).
Outputs: pytorch_issues.json and tf2onnx_issues.json (JSON arrays of GitHub REST issue objects,
as GET /repos/{owner}/{repo}/issues returns them), threads.jsonl (one issue per line, flattened
shape or REST shape, with embedded comments and timeline events) and labels.csv (our own
taxonomy labels of these issues). Re-run after editing: python3 scripts/make_sample.py
"""
import csv
import hashlib
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sample")
FENCE = "```"


def sha(seed):
    return hashlib.sha1(seed.encode()).hexdigest()


def user(login, uid):
    return {"login": login, "id": uid, "node_id": "U_%d" % uid, "type": "User",
            "avatar_url": "https://avatars.githubusercontent.com/u/%d?v=4" % uid,
            "html_url": "https://github.com/" + login, "site_admin": False}


LABEL_COLORS = {"module: onnx": "f7e101", "triaged": "d4c5f9", "onnx-triaged": "0e8a16",
                "oncall: jit": "bfd4f2", "bug": "d73a4a", "enhancement": "a2eeef",
                "pending on user response": "fbca04", "contribution welcome": "7057ff",
                "ci": "c5def5", "documentation": "0075ca", "performance": "e99695",
                "module: build": "ededed"}


def rest_label(repo, name, i):
    return {"id": 4000000 + i, "node_id": "LA_%d" % i,
            "url": "https://api.github.com/repos/%s/labels/%s" % (repo, name.replace(" ", "%20")),
            "name": name, "color": LABEL_COLORS.get(name, "ededed"), "default": False,
            "description": ""}


def rest_issue(repo, number, title, login, uid, assoc, labels, created, updated, closed, body,
               ncomments, pull=False):
    api = "https://api.github.com/repos/" + repo
    kind = "pull" if pull else "issues"
    obj = {
        "url": "%s/issues/%d" % (api, number),
        "repository_url": api,
        "labels_url": "%s/issues/%d/labels{/name}" % (api, number),
        "comments_url": "%s/issues/%d/comments" % (api, number),
        "events_url": "%s/issues/%d/events" % (api, number),
        "html_url": "https://github.com/%s/%s/%d" % (repo, kind, number),
        "id": 1300000000 + number,
        "node_id": "I_kwDO%08d" % number,
        "number": number,
        "title": title,
        "user": user(login, uid),
        "labels": [rest_label(repo, n, k) for k, n in enumerate(labels)],
        "state": "closed" if closed else "open",
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": ncomments,
        "created_at": created,
        "updated_at": updated,
        "closed_at": closed,
        "author_association": assoc,
        "active_lock_reason": None,
        "body": body,
        "reactions": {"url": "%s/issues/%d/reactions" % (api, number), "total_count": 0,
                      "+1": 0, "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0,
                      "rocket": 0, "eyes": 0},
        "timeline_url": "%s/issues/%d/timeline" % (api, number),
        "performed_via_github_app": None,
        "state_reason": ("completed" if closed else None),
    }
    if pull:
        obj["draft"] = False
        obj["pull_request"] = {
            "url": "%s/pulls/%d" % (api, number),
            "html_url": "https://github.com/%s/pull/%d" % (repo, number),
            "diff_url": "https://github.com/%s/pull/%d.diff" % (repo, number),
            "patch_url": "https://github.com/%s/pull/%d.patch" % (repo, number),
            "merged_at": closed}
        del obj["state_reason"]
    return obj


def ev_closed(actor, uid, at, commit=None, repo=None):
    e = {"id": int(sha(at + actor)[:8], 16), "event": "closed", "actor": user(actor, uid),
         "created_at": at, "commit_id": commit, "commit_url": None, "state_reason": "completed"}
    if commit:
        e["commit_url"] = "https://api.github.com/repos/%s/commits/%s" % (repo, commit)
    return e


def ev_referenced(actor, uid, at, commit, repo):
    return {"id": int(sha(at + commit)[:8], 16), "event": "referenced", "actor": user(actor, uid),
            "created_at": at, "commit_id": commit,
            "commit_url": "https://api.github.com/repos/%s/commits/%s" % (repo, commit)}


def ev_labeled(actor, uid, at, name):
    return {"id": int(sha(at + name)[:8], 16), "event": "labeled", "actor": user(actor, uid),
            "created_at": at, "label": {"name": name, "color": LABEL_COLORS.get(name, "ededed")}}


def ev_xref(actor, uid, at, src_repo, src_number, src_title, src_state, pull=True):
    api = "https://api.github.com/repos/" + src_repo
    kind = "pull" if pull else "issues"
    issue = {"number": src_number, "title": src_title, "state": src_state,
             "html_url": "https://github.com/%s/%s/%d" % (src_repo, kind, src_number),
             "repository_url": api, "user": user(actor, uid),
             "repository": {"full_name": src_repo, "name": src_repo.split("/")[1]}}
    if pull:
        issue["pull_request"] = {"url": "%s/pulls/%d" % (api, src_number),
                                 "merged_at": at if src_state == "closed" else None}
    return {"event": "cross-referenced", "actor": user(actor, uid), "created_at": at,
            "updated_at": at, "source": {"type": "issue", "issue": issue}}


def flat_comment(author, at, body, assoc=None):
    c = {"author": author, "created_at": at, "body": body}
    if assoc:
        c["author_association"] = assoc
    return c


def rest_comment(repo, number, cid, login, uid, assoc, at, body):
    return {"url": "https://api.github.com/repos/%s/issues/comments/%d" % (repo, cid),
            "html_url": "https://github.com/%s/issues/%d#issuecomment-%d" % (repo, number, cid),
            "issue_url": "https://api.github.com/repos/%s/issues/%d" % (repo, number),
            "id": cid, "node_id": "IC_%d" % cid, "user": user(login, uid),
            "created_at": at, "updated_at": at, "author_association": assoc, "body": body,
            "reactions": {"total_count": 0}, "performed_via_github_app": None}


def py(code):
    return FENCE + "python\n" + code.strip("\n") + "\n" + FENCE


def block(text):
    return FENCE + "\n" + text.strip("\n") + "\n" + FENCE


def env(*lines):
    return "## Versions\n" + block("\n".join(lines))


PT = "pytorch/pytorch"
TF = "onnx/tensorflow-onnx"
PD = "PaddlePaddle/Paddle2ONNX"
LABELS = []  # (repo, number, symptom, cause, subtype, stage)


def label(repo, number, symptom, cause, subtype, stage):
    LABELS.append((repo, number, symptom, cause, subtype, stage))


# ---------------------------------------------------------------- pytorch/pytorch, REST array
def pytorch_issues():
    out = []
    body = (
        "### 🐛 Describe the bug\n\nExporting a model that calls `Tensor.unflatten` fails on "
        "opset 13 although the same op is handled for opset 11 in nightly.\n\n" + py('''
import torch

class Head(torch.nn.Module):
    def forward(self, x):
        return x.unflatten(1, (4, -1))

x = torch.randn(2, 32)
torch.onnx.export(Head(), (x,), "head.onnx", opset_version=13)
''') + "\n\n" + block('''
Traceback (most recent call last):
  File "repro.py", line 8, in <module>
    torch.onnx.export(Head(), (x,), "head.onnx", opset_version=13)
  File "/opt/conda/lib/python3.10/site-packages/torch/onnx/utils.py", line 506, in export
    _export(
  File "/opt/conda/lib/python3.10/site-packages/torch/onnx/utils.py", line 1548, in _export
    graph, params_dict, torch_out = _model_to_graph(
  File "/opt/conda/lib/python3.10/site-packages/torch/onnx/utils.py", line 1117, in _model_to_graph
    graph = _optimize_graph(
  File "/opt/conda/lib/python3.10/site-packages/torch/onnx/utils.py", line 665, in _run_symbolic_function
torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::unflatten' to ONNX opset version 13 is not supported. Please feel free to request support or submit a pull request on PyTorch GitHub: https://github.com/pytorch/pytorch/issues.
''') + "\n\n" + env("PyTorch version: 1.13.0+cu117", "ONNX version: 1.12.0",
                     "Python version: 3.10.8", "OS: Ubuntu 20.04.5 LTS"))
    out.append(rest_issue(PT, 81234, "[ONNX] Exporting aten::unflatten fails with opset 13",
                          "kestrel-ml", 71001, "NONE", ["module: onnx", "triaged"],
                          "2022-07-11T08:14:02Z", "2022-11-18T19:40:11Z", "2022-11-18T19:40:11Z",
                          body, 3))
    label(PT, 81234, "crash", "incompatibility", "external", "node_conversion")

    body = (
        "### 🐛 Describe the bug\n\n`nn.GroupNorm(8, 64, affine=False)` exports without error, "
        "but ONNX Runtime returns values that differ from PyTorch by up to 0.4. With "
        "`affine=True` the outputs match. Looking at the graph, the exporter emits "
        "`InstanceNormalization` followed by a `Reshape`, and the scale input is filled with "
        "the wrong constant when affine is off.\n\n" + py('''
import numpy as np, onnxruntime as ort, torch

m = torch.nn.GroupNorm(8, 64, affine=False).eval()
x = torch.randn(1, 64, 7, 7)
torch.onnx.export(m, x, "gn.onnx", opset_version=15)
sess = ort.InferenceSession("gn.onnx", providers=["CPUExecutionProvider"])
got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0]
print(np.abs(got - m(x).detach().numpy()).max())  # 0.41
''') + "\n\n" + env("torch 1.12.1", "onnxruntime 1.12.1", "onnx 1.12.0"))
    out.append(rest_issue(PT, 82017,
                          "[ONNX] Exported GroupNorm(affine=False) gives different output in onnxruntime",
                          "tamarind-dev", 71002, "CONTRIBUTOR", ["module: onnx", "onnx-triaged"],
                          "2022-07-22T13:02:45Z", "2022-09-02T10:11:30Z", "2022-09-02T10:11:30Z",
                          body, 2))
    label(PT, 82017, "wrong_model", "type_problem", "node", "node_conversion")

    body = (
        "### 🐛 Describe the bug\n\nAfter upgrading from 1.11 to 1.12 exporting our speech "
        "model (about 300 `Linear` layers, 90M parameters) went from 50 seconds to more than 40 "
        "minutes. py-spy shows nearly all of the time in `_jit_pass_onnx_constant_fold`, which "
        "seems to re-run for every initializer. Setting `do_constant_folding=False` brings it "
        "back to under a minute.\n\n" + py('''
import time, torch
model = build_asr_model().eval()
dummy = torch.randn(1, 16000)
t0 = time.time()
torch.onnx.export(model, dummy, "asr.onnx", opset_version=14, do_constant_folding=True)
print("export took", time.time() - t0)
''') + "\n\n" + env("torch 1.12.0 (worked fast on 1.11.0)", "Python 3.9.13", "CPU: 16 cores"))
    out.append(rest_issue(PT, 83550,
                          "torch.onnx.export is 50x slower since 1.12 (constant folding)",
                          "quill-ops", 71003, "NONE", ["module: onnx", "triaged", "performance"],
                          "2022-08-17T16:40:00Z", "2022-10-03T09:00:12Z", "2022-10-03T09:00:12Z",
                          body, 4))
    label(PT, 83550, "bad_performance", "algorithmic_error", "", "optimization")

    body = (
        "### 🐛 Describe the bug\n\nExporting a scripted module that contains a `while` loop "
        "whose condition depends on a tensor never returns. CPU stays at 100% for hours; "
        "Ctrl-C shows it is inside the loop unrolling of the tracer.\n\n" + py('''
import torch

@torch.jit.script
def decode(x: torch.Tensor):
    i = 0
    while bool(x.sum() > 0):
        x = x - 1
        i += 1
    return x, i

class M(torch.nn.Module):
    def forward(self, x):
        return decode(x)

torch.onnx.export(M(), torch.ones(3), "loop.onnx", opset_version=16)  # hangs
''') + "\n\n" + env("torch 1.13.0.dev20220901", "Python 3.8"))
    out.append(rest_issue(PT, 84102, "torch.onnx.export hangs on a scripted while loop",
                          "nadir-w", 71004, "NONE", ["module: onnx", "oncall: jit"],
                          "2022-09-05T07:55:19Z", "2022-12-12T21:30:00Z", "2022-12-12T21:30:00Z",
                          body, 2))
    label(PT, 84102, "hang", "algorithmic_error", "", "load_model")

    body = (
        "### 🐛 Describe the bug\n\nA module returning a tuple whose second element is a Python "
        "list of tensors cannot be exported:\n\n" + block('''
RuntimeError: isTensor() INTERNAL ASSERT FAILED at "../aten/src/ATen/core/ivalue_inl.h":1921, please report a bug to PyTorch. Expected Tensor but got GenericList
''') + "\n\n" + py('''
class Det(torch.nn.Module):
    def forward(self, x):
        boxes = [x[:, :4], x[:, 4:8]]
        return x.sum(), boxes

torch.onnx.export(Det(), torch.rand(5, 8), "det.onnx")
''') + "\n\nThe tracer should either flatten the list or raise a readable error.\n\n" +
        env("torch 1.13.1", "Python 3.10.9", "Windows 11"))
    out.append(rest_issue(PT, 85391,
                          "RuntimeError: isTensor() INTERNAL ASSERT FAILED exporting a model that returns a list",
                          "bramble-ai", 71005, "NONE", ["module: onnx", "triaged"],
                          "2022-09-26T11:21:43Z", "2023-01-20T14:00:00Z", "2023-01-20T14:00:00Z",
                          body, 3))
    label(PT, 85391, "crash", "type_problem", "conventional", "load_model")

    body = (
        "I export with `dynamic_axes={'input': {0: 'batch'}}` but the exported graph contains a "
        "`Reshape` whose shape input is the constant `[1, 196, 768]`, so the model only runs with "
        "batch size 1. onnxruntime fails for batch 4:\n\n" + block('''
onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Reshape node. Name:'/encoder/Reshape_3' Status Message: The input tensor cannot be reshaped to the requested shape. Input shape:{4,196,768}, requested shape:{1,196,768}
''') + "\n\n" + py('''
torch.onnx.export(vit, torch.randn(1, 3, 224, 224), "vit.onnx",
                  input_names=["input"], output_names=["logits"],
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                  opset_version=14)
''') + "\n\nThe model code uses `x.view(x.size(0), -1, self.dim)`." + "\n\n" +
        env("torch 1.12.1", "onnxruntime-gpu 1.13.1"))
    out.append(rest_issue(PT, 86120,
                          "[ONNX] dynamic_axes ignored for view(): exported Reshape has a constant batch of 1",
                          "lumen-quant", 71006, "NONE", ["module: onnx", "onnx-triaged"],
                          "2022-10-03T18:05:27Z", "2022-10-25T08:44:09Z", "2022-10-25T08:44:09Z",
                          body, 2))
    label(PT, 86120, "wrong_model", "shape_problem", "", "node_conversion")

    body = (
        "`torch.where(mask, x, 0)` exports, but the constant `0` becomes an int64 tensor while "
        "`x` is float32. The ONNX checker passes, onnxruntime refuses to load the model:\n\n" +
        block('''
onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from where.onnx failed:Type Error: Type (tensor(int64)) of input parameter (onnx::Where_3) of operator (Where) in node (Where_2) is invalid.
''') + "\n\n" + env("torch 1.13.0", "onnxruntime 1.13.1", "opset_version=13"))
    out.append(rest_issue(PT, 87005,
                          "Exported Where mixes int64 and float32 inputs (scalar other)",
                          "pebble-nn", 71007, "NONE", ["module: onnx", "triaged"],
                          "2022-10-18T09:30:00Z", "2022-11-30T12:00:00Z", "2022-11-30T12:00:00Z",
                          body, 1))
    label(PT, 87005, "wrong_model", "type_problem", "tensor", "node_conversion")

    body = (
        "Exporting a 3.2B parameter model fails at the very end, after all nodes were "
        "converted:\n\n" + block('''
  File "/usr/lib/python3/dist-packages/torch/onnx/utils.py", line 1613, in _export
    proto, export_map, val_use_external_data_format = graph._export_onnx(
RuntimeError: Exporting model exceed maximum protobuf size of 2GB. Please call torch.onnx.export with use_external_data_format=True.
''') + "\n\nThe flag mentioned in the message was removed in 1.13 (external data is supposed to "
        "be automatic), so there is no way to follow the advice.\n\n" +
        env("torch 1.13.1", "onnx 1.13.0", "RAM 256 GB"))
    out.append(rest_issue(PT, 87764,
                          "Cannot export a model larger than 2GB: message asks for removed use_external_data_format",
                          "orrery-labs", 71008, "NONE", ["module: onnx", "triaged"],
                          "2022-10-28T15:12:51Z", "2023-02-02T17:20:00Z", "2023-02-02T17:20:00Z",
                          body, 5))
    label(PT, 87764, "crash", "incompatibility", "resource", "export")

    body = (
        "`test/onnx/test_pytorch_onnx_onnxruntime.py::TestONNXRuntime_opset17::test_softmax_dim` "
        "fails about one run in twenty on the linux-focal-py3.8 shard with a tolerance error "
        "(max diff 2e-5 vs rtol 1e-5). The test seeds the generator only once per class, so "
        "the input depends on test order. Proposal: seed in setUp and relax atol to 1e-4.")
    out.append(rest_issue(PT, 88213, "[ONNX] test_softmax_dim is flaky on CI",
                          "ci-sheriff-bot", 71009, "MEMBER", ["module: onnx", "ci"],
                          "2022-11-01T04:00:00Z", "2022-11-09T22:10:00Z", "2022-11-09T22:10:00Z",
                          body, 1))
    label(PT, 88213, "unreported", "testing", "", "not_distinguishable")

    body = (
        "### 📚 The doc issue\n\nThe docstring of `torch.onnx.export` still describes the "
        "`example_outputs` argument, which was deprecated in 1.11 and removed later. Users "
        "following the docs get `TypeError: export() got an unexpected keyword argument "
        "'example_outputs'`.\n\n### Suggest a potential alternative/fix\n\nDrop the paragraph "
        "and mention that outputs are inferred by running the model.")
    out.append(rest_issue(PT, 88901, "torch.onnx.export docs still mention example_outputs",
                          "fjord-reader", 71010, "NONE", ["module: onnx", "documentation"],
                          "2022-11-15T10:02:33Z", "2022-12-01T08:00:00Z", "2022-12-01T08:00:00Z",
                          body, 1))
    label(PT, 88901, "unreported", "documentation", "", "not_distinguishable")

    body = ("Fixes #81234\n\nAdds a symbolic for `aten::unflatten` for opsets 13+ built from "
            "`Shape`, `Slice` and `Concat`, and handles a negative `dim`. Adds "
            "`test_unflatten_negative_dim` to test_pytorch_onnx_onnxruntime.py.")
    out.append(rest_issue(PT, 88950, "[ONNX] Add symbolic for aten::unflatten (opset 13+)",
                          "tamarind-dev", 71002, "CONTRIBUTOR",
                          ["module: onnx", "open source"], "2022-11-16T12:00:00Z",
                          "2022-11-18T19:39:00Z", "2022-11-18T19:39:00Z", body, 2, pull=True))
    return out


# ---------------------------------------------------------- onnx/tensorflow-onnx, REST array
def tf2onnx_issues():
    out = []
    body = (
        "**Describe the bug**\nConverting a saved_model that uses `tf.newaxis` inside a slice "
        "fails:\n\n" + block('''
2022-03-02 10:11:12,345 - ERROR - Tensorflow op [model/strided_slice_2: StridedSlice] is not supported
Traceback (most recent call last):
  File "/usr/local/lib/python3.8/dist-packages/tf2onnx/tfonnx.py", line 294, in tensorflow_onnx_mapping
    func(g, node, **kwargs, initialized_tables=initialized_tables, dequantize=dequantize)
  File "/usr/local/lib/python3.8/dist-packages/tf2onnx/onnx_opset/tensor.py", line 905, in version_1
    raise ValueError("StridedSlice: new_axis_mask is not supported")
ValueError: StridedSlice: new_axis_mask is not supported
''') + "\n\n**Urgency**\nBlocks our deployment.\n\n**System information**\n" + block('''
OS Platform and Distribution: Ubuntu 18.04
Tensorflow Version: 2.8.0
Python version: 3.8
tf2onnx: 1.9.3
''') + "\n\n**To Reproduce**\n" + block(
            "python -m tf2onnx.convert --saved-model ./export --output model.onnx --opset 13"))
    out.append(rest_issue(TF, 1901, "StridedSlice with new_axis_mask not supported",
                          "gannet-vision", 72001, "NONE", ["bug"], "2022-03-02T10:20:00Z",
                          "2022-04-11T16:00:00Z", "2022-04-11T16:00:00Z", body, 2))
    label(TF, 1901, "crash", "incompatibility", "external", "node_conversion")

    body = (
        "**Describe the bug**\nA Keras NHWC model converts fine, but the output of the ONNX "
        "model differs from TensorFlow (cosine similarity 0.71). Converting with "
        "`--disable_optimizers TransposeOptimizer` gives matching results, so the transpose "
        "optimizer seems to push a `Transpose` through a `Pad` with the wrong permutation of "
        "the pads attribute.\n\n" + py('''
import tensorflow as tf, tf2onnx
model = tf.keras.models.load_model("unet_nhwc.h5")
spec = (tf.TensorSpec((1, 256, 256, 3), tf.float32, name="image"),)
model_proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=13,
                                            output_path="unet.onnx")
''') + "\n\n**System information**\n- tf2onnx 1.10.1\n- tensorflow 2.9.1\n"
        "- onnxruntime 1.11.1")
    out.append(rest_issue(TF, 1915,
                          "Wrong output after TransposeOptimizer pushes Transpose through Pad",
                          "heron-seg", 72002, "NONE", ["bug"], "2022-04-20T09:00:00Z",
                          "2022-06-01T13:30:00Z", "2022-06-01T13:30:00Z", body, 3))
    label(TF, 1915, "wrong_model", "algorithmic_error", "", "optimization")

    body = (
        "`pip install tf2onnx` on Python 3.11 fails while building the pinned protobuf "
        "version from source:\n\n" + block('''
Collecting protobuf~=3.20.2
  Using cached protobuf-3.20.3.tar.gz (216 kB)
ERROR: Could not build wheels for protobuf, which is required to install pyproject.toml-based projects
error: subprocess-exited-with-error
''') + "\n\nPython 3.11.1, pip 22.3.1, macOS 13 arm64. Relaxing the pin in setup.py to "
        "`protobuf>=3.20` installs fine.")
    out.append(rest_issue(TF, 1932, "pip install fails on Python 3.11 (protobuf pin)",
                          "osprey-mac", 72003, "NONE", ["bug", "contribution welcome"],
                          "2022-12-28T20:00:00Z", "2023-01-16T09:00:00Z", "2023-01-16T09:00:00Z",
                          body, 2))
    label(TF, 1932, "build_failure", "misconfiguration", "", "not_distinguishable")

    body = (
        "Conversion of a 40k-node frozen graph stops making progress after this log line:\n\n" +
        block('''
2022-05-09 14:01:55,120 - INFO - Using tensorflow=2.8.2, onnx=1.11.0, tf2onnx=1.10.0/1b5a3c
2022-05-09 14:01:55,121 - INFO - Using opset <onnx, 13>
2022-05-09 14:03:40,882 - INFO - Optimizing ONNX model
''') + "\n\nI left it running for 9 hours. The graph has about 12,000 `Identity` nodes "
        "produced by tf.function control dependencies. With `--disable_optimizers "
        "IdentityOptimizer` conversion finishes in 3 minutes.")
    out.append(rest_issue(TF, 1948,
                          "Conversion hangs at 'Optimizing ONNX model' on a graph with many Identity nodes",
                          "plover-rt", 72004, "NONE", ["bug", "pending on user response"],
                          "2022-05-09T14:30:00Z", "2022-07-19T11:11:11Z", "2022-07-19T11:11:11Z",
                          body, 4))
    label(TF, 1948, "hang", "algorithmic_error", "", "optimization")

    body = (
        "Converting the same EfficientDet saved_model takes 95 s with tf2onnx 1.12.1 and 310 s "
        "with 1.13.0. cProfile points at `tf_loader.from_saved_model`, which now loads the "
        "graph twice (once to read signatures, once to freeze) since the refactor of the "
        "loader.\n\n" + block('''
$ time python -m tf2onnx.convert --saved-model effdet_d2 --output d2.onnx --opset 15
real    5m10.442s
''') + "\n\ntensorflow 2.10.1, Python 3.9.")
    out.append(rest_issue(TF, 1960, "Saved model conversion 3x slower in tf2onnx 1.13",
                          "curlew-perf", 72005, "NONE", ["bug"], "2022-12-05T08:00:00Z",
                          "2023-01-10T12:00:00Z", "2023-01-10T12:00:00Z", body, 2))
    label(TF, 1960, "bad_performance", "incompatibility", "internal", "load_model")

    body = (
        "A model exported in training mode has a `FusedBatchNormV3` with `is_training=True`. "
        "The handler reads an attribute that is only set on the inference path:\n\n" + block('''
  File "/opt/venv/lib/python3.9/site-packages/tf2onnx/onnx_opset/nn.py", line 1024, in version_6
    tf_type = node.get_attr_value("T")
  File "/opt/venv/lib/python3.9/site-packages/tf2onnx/graph.py", line 301, in get_attr_value
    return self.attr[name]
KeyError: 'T'
''') + "\n\ntf2onnx 1.11.1 / tensorflow 2.9.0 / opset 13. Expected: a clear error that "
        "training-mode batch norm is unsupported, or conversion using the moving statistics.")
    out.append(rest_issue(TF, 1977, "KeyError: 'T' converting FusedBatchNormV3 with is_training=True",
                          "avocet-train", 72006, "NONE", ["bug"], "2022-06-14T07:45:00Z",
                          "2022-08-22T15:00:00Z", "2022-08-22T15:00:00Z", body, 1))
    label(TF, 1977, "crash", "incorrect_assignment", "", "node_conversion")

    body = ("Implements `new_axis_mask` for StridedSlice by inserting `Unsqueeze` after the "
            "slice. Closes #1901. Adds tests in tests/test_backend.py for masks 1, 2 and 5.")
    out.append(rest_issue(TF, 1980, "Support new_axis_mask in StridedSlice handler",
                          "tern-maint", 72007, "COLLABORATOR", ["enhancement"],
                          "2022-04-05T10:00:00Z", "2022-04-11T15:58:00Z", "2022-04-11T15:58:00Z",
                          body, 1, pull=True))
    return out


# ------------------------------------------------- threads.jsonl: issues with their threads
def flat(repo, number, title, author, labels, created, updated, closed, body, comments,
         timeline=None, state=None):
    o = {"repo": repo, "number": number, "title": title,
         "state": state or ("closed" if closed else "open"), "labels": labels, "author": author,
         "created_at": created, "updated_at": updated, "closed_at": closed,
         "html_url": "https://github.com/%s/issues/%d" % (repo, number), "body": body,
         "comments": comments}
    if timeline is not None:
        o["timeline"] = timeline
    return o


def threads():
    out = []
    c = flat_comment
    out.append(flat(PT, 89044,
        "[ONNX] torchvision RoIAlign(aligned=True) exported model returns shifted boxes",
        "ibis-detect", ["module: onnx", "triaged"], "2022-11-21T09:12:00Z",
        "2023-01-05T10:00:00Z", "2023-01-05T10:00:00Z",
        "Mask R-CNN exported with opset 16 runs in onnxruntime, but the mask head features are "
        "shifted by half a pixel compared with PyTorch. `torchvision.ops.roi_align(..., "
        "aligned=True)` is exported as ONNX `RoiAlign` without setting "
        "`coordinate_transformation_mode='half_pixel'`, so ORT uses `output_half_pixel`.\n\n" +
        py('''
from torchvision.ops import roi_align
class R(torch.nn.Module):
    def forward(self, feat, rois):
        return roi_align(feat, rois, (7, 7), spatial_scale=0.25, sampling_ratio=2, aligned=True)
torch.onnx.export(R(), (torch.rand(1, 256, 50, 50), torch.tensor([[0, 4., 4., 60., 60.]])),
                  "roi.onnx", opset_version=16)
''') + "\n\ntorch 1.13.0, torchvision 0.14.0, onnxruntime 1.13.1",
        [c("ibis-detect", "2022-11-21T09:40:00Z",
           "Max abs diff is 0.37 on the mask logits; with aligned=False it is 1e-6.", "NONE"),
         c("willet-onnx", "2022-11-23T17:02:00Z",
           "Confirmed. The opset 16 symbolic in torchvision only handles aligned=False. Opset 16 "
           "added the attribute so we can set it. I'll send a PR.", "COLLABORATOR"),
         c("willet-onnx", "2023-01-05T09:58:00Z", "Fixed by #89100.", "COLLABORATOR")],
        [ev_labeled("willet-onnx", 73002, "2022-11-23T17:03:00Z", "triaged"),
         ev_xref("willet-onnx", 73002, "2022-12-01T11:00:00Z", PT, 89100,
                 "[ONNX] Export RoIAlign aligned=True with half_pixel mode", "closed"),
         ev_closed("willet-onnx", 73002, "2023-01-05T10:00:00Z")]))
    label(PT, 89044, "wrong_model", "type_problem", "node", "node_conversion")

    out.append(flat(PT, 89310,
        "Segmentation fault in torch.onnx.export with a custom autograd.Function",
        "marten-kb", ["module: onnx", "triaged"], "2022-11-25T22:10:00Z",
        "2022-12-20T08:00:00Z", "2022-12-20T08:00:00Z",
        "Exporting a model with a custom `torch.autograd.Function` that has no `symbolic` "
        "static method crashes the interpreter:\n\n" + block('''
Fatal Python error: Segmentation fault
Current thread 0x00007f3c (most recent call first):
  File "/usr/local/lib/python3.10/site-packages/torch/onnx/utils.py", line 1089 in _model_to_graph
''') + "\n\n" + py('''
class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1, 1)
torch.onnx.export(Wrap(), torch.randn(4), "clip.onnx",
                  operator_export_type=torch.onnx.OperatorExportTypes.ONNX_FALLTHROUGH)
'''),
        [c("bluet-core", "2022-11-28T13:00:00Z",
           "`ONNX_FALLTHROUGH` plus a `prim::PythonOp` without a symbolic reaches a path that "
           "dereferences a null Python object. Without FALLTHROUGH you get the expected "
           "`RuntimeError: ONNX export failed: Couldn't export Python operator Clip`. The export "
           "type should only be used together with custom ops.", "MEMBER"),
         c("marten-kb", "2022-11-28T15:20:00Z",
           "I see, adding a `symbolic` that emits `Clip` works. Still, a segfault is harsh.",
           "NONE")],
        [ev_referenced("bluet-core", 73003, "2022-12-19T18:00:00Z", sha("89310-fix"), PT),
         ev_closed("bluet-core", 73003, "2022-12-20T08:00:00Z", sha("89310-fix"), PT)]))
    label(PT, 89310, "crash", "api_misuse", "", "load_model")

    out.append(flat(PT, 89502,
        "Exporting scaled_dot_product_attention to ONNX opset 14 is not supported",
        "sparrow-llm", ["module: onnx"], "2022-12-02T12:00:00Z", "2023-03-01T09:00:00Z",
        "2023-03-01T09:00:00Z",
        "With the 2.0 nightly, any transformer using `F.scaled_dot_product_attention` fails "
        "to export:\n\n" + block('''
torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::scaled_dot_product_attention' to ONNX opset version 14 is not supported. Support for this operator was added in version 14, try exporting with this version.
''') + "\n\nThe message is contradictory: it says opset 14 is unsupported and suggests "
        "exporting with opset 14.\n\nVersions: torch 2.0.0.dev20221201+cpu, Python 3.10",
        [c("willet-onnx", "2022-12-05T08:15:00Z",
           "There is no symbolic for the fused op yet; the message template is wrong as well. "
           "As a workaround decompose the attention manually (matmul, softmax, matmul).",
           "COLLABORATOR"),
         c("sparrow-llm", "2023-02-27T19:00:00Z",
           "Works on the 2.0 release candidate with opset 14, thanks.", "NONE")],
        [ev_xref("grebe-hf", 73020, "2022-12-06T10:00:00Z", "huggingface/transformers", 20601,
                 "ONNX export of BERT fails on torch nightly", "open", pull=False),
         ev_closed("sparrow-llm", 73010, "2023-03-01T09:00:00Z")]))
    label(PT, 89502, "crash", "incompatibility", "external", "node_conversion")

    out.append(flat(PT, 89777,
        "ONNX_FALLTHROUGH export writes a model that onnx.checker rejects, without a warning",
        "finch-tools", ["module: onnx", "onnx-triaged"], "2022-12-08T14:00:00Z",
        "2023-01-11T10:30:00Z", "2023-01-11T10:30:00Z",
        "`torch.onnx.export(..., operator_export_type=ONNX_FALLTHROUGH)` returns normally even "
        "though the graph contains an `aten::_upsample_bilinear2d_aa` node in the default "
        "domain. The exporter skips its own `_C._check_onnx_proto` for this export type, and "
        "the problem only shows up later:\n\n" + block('''
onnx.onnx_cpp2py_export.checker.ValidationError: No Op registered for _upsample_bilinear2d_aa with domain_version of 16
==> Context: Bad node spec for node. Name: /resize/_upsample_bilinear2d_aa OpType: _upsample_bilinear2d_aa
''') + "\n\nExpected: a warning or an error during export.",
        [c("willet-onnx", "2022-12-09T09:00:00Z",
           "Skipping the check is intended for FALLTHROUGH, but we should at least warn. "
           "Marking as a validation gap.", "COLLABORATOR")],
        [ev_labeled("willet-onnx", 73002, "2022-12-09T09:01:00Z", "onnx-triaged"),
         ev_referenced("willet-onnx", 73002, "2023-01-11T10:00:00Z", sha("89777"), PT),
         ev_closed("willet-onnx", 73002, "2023-01-11T10:30:00Z")]))
    label(PT, 89777, "wrong_model", "incorrect_exception_handling", "", "validation")

    out.append(flat(PT, 90021,
        "Peak memory 60 GB while exporting a model with a 4 GB embedding table",
        "tanager-rec", ["module: onnx", "performance"], "2022-12-13T16:00:00Z",
        "2023-02-14T12:00:00Z", None,
        "Export of a recommendation model (one `nn.Embedding(50_000_000, 20)`) is killed by the "
        "OOM killer on a 64 GB machine. tracemalloc shows the initializer being copied four "
        "times: to numpy, into the TensorProto, into the serialized ModelProto string and "
        "again when writing external data.\n\n" + py('''
torch.onnx.export(model, (ids, offsets), "rec.onnx", opset_version=15,
                  input_names=["ids", "offsets"], dynamic_axes={"ids": {0: "n"}})
''') + "\n\ntorch 1.13.1, onnx 1.13.0, Ubuntu 22.04",
        [c("bluet-core", "2022-12-15T10:00:00Z",
           "Known limitation of serialising through a single protobuf. Saving large "
           "initializers straight to external data files is on the roadmap.", "MEMBER")],
        [ev_labeled("bluet-core", 73003, "2022-12-15T10:01:00Z", "performance")], state="open"))
    label(PT, 90021, "bad_performance", "incompatibility", "resource", "export")

    out.append(flat(PT, 90415,
        "Build from source fails with USE_SYSTEM_ONNX=ON: onnx/onnx_pb.h not found",
        "shrike-build", ["module: build", "module: onnx"], "2022-12-19T08:30:00Z",
        "2023-01-04T11:00:00Z", "2023-01-04T11:00:00Z",
        "Building v1.13.1 against Debian's libonnx-dev:\n\n" + block('''
$ USE_SYSTEM_ONNX=ON python setup.py develop
...
/src/torch/csrc/onnx/init.cpp:3:10: fatal error: onnx/onnx_pb.h: No such file or directory
    3 | #include <onnx/onnx_pb.h>
compilation terminated.
ninja: build stopped: subcommand failed.
''') + "\n\nThe system package installs `onnx/onnx-ml.pb.h` only and defines `ONNX_ML=1`; "
        "cmake/Dependencies.cmake does not add the definition when USE_SYSTEM_ONNX is set.",
        [c("kite-infra", "2022-12-20T09:00:00Z",
           "Please try passing `-DONNX_ML=1` through CMAKE_ARGS; we will add it to "
           "Dependencies.cmake.", "MEMBER"),
         c("shrike-build", "2022-12-20T12:00:00Z", "That builds. Thanks!", "NONE")],
        [ev_closed("kite-infra", 73030, "2023-01-04T11:00:00Z", sha("90415"), PT)]))
    label(PT, 90415, "build_failure", "misconfiguration", "", "not_distinguishable")

    out.append(flat(PT, 90633,
        "NameError: name 'symbolic_helper' is not defined in symbolic_opset16.grid_sampler",
        "wren-cv", ["module: onnx", "triaged"], "2022-12-23T10:00:00Z", "2022-12-29T16:00:00Z",
        "2022-12-29T16:00:00Z",
        "Exporting `F.grid_sample` with opset 16 on the nightly crashes inside the symbolic:\n\n" +
        block('''
  File "/home/u/.local/lib/python3.9/site-packages/torch/onnx/symbolic_opset16.py", line 37, in grid_sampler
    mode_s = symbolic_helpr._maybe_get_const(mode_enum, "i")
NameError: name 'symbolic_helpr' is not defined
''') + "\n\nLooks like a misspelt module name introduced by the last refactor.",
        [c("willet-onnx", "2022-12-23T12:00:00Z", "Oops, yes. Fix incoming.", "COLLABORATOR")],
        [ev_closed("willet-onnx", 73002, "2022-12-29T16:00:00Z", sha("90633"), PT)]))
    label(PT, 90633, "crash", "typo", "", "node_conversion")

    out.append(flat(PT, 90880,
        "torch.onnx.export deadlocks when two threads export at the same time",
        "loon-serve", ["module: onnx", "triaged"], "2022-12-30T09:00:00Z",
        "2023-02-20T10:00:00Z", "2023-02-20T10:00:00Z",
        "Our model server exports per-tenant models in a ThreadPoolExecutor. With two workers "
        "the process freezes; py-spy dump shows both threads waiting in "
        "`GLOBALS.in_onnx_export` context management while one holds the GIL inside "
        "`_C._jit_pass_onnx`.\n\n" + py('''
with ThreadPoolExecutor(2) as pool:
    list(pool.map(lambda m: torch.onnx.export(m, x, f"{id(m)}.onnx"), models))
''') + "\n\ntorch 1.13.1 on Linux",
        [c("bluet-core", "2023-01-03T10:00:00Z",
           "The exporter keeps global state and is not thread-safe. Use processes instead; we "
           "will add a lock so that it at least errors out instead of hanging.", "MEMBER")],
        [ev_referenced("bluet-core", 73003, "2023-02-19T10:00:00Z", sha("90880"), PT),
         ev_closed("bluet-core", 73003, "2023-02-20T10:00:00Z")]))
    label(PT, 90880, "hang", "concurrency", "", "load_model")

    out.append(flat(TF, 1990,
        "Resize with half_pixel_centers=True gives shifted output compared to TF",
        "kinglet-img", ["bug"], "2022-05-20T10:00:00Z", "2022-06-30T10:00:00Z",
        "2022-06-30T10:00:00Z",
        "`tf.compat.v1.image.resize_bilinear(x, size, half_pixel_centers=True)` converts to "
        "`Resize` with `coordinate_transformation_mode='pytorch_half_pixel'`, which differs "
        "from TF when the output size is 1 along an axis. The scale factor is computed as "
        "`out / in` instead of `in / out` in the handler.\n\n" + py('''
import numpy as np, onnxruntime as ort
print(np.abs(tf_out - ort_out).max())   # 12.5
''') + "\n\ntf2onnx 1.10.0, TF 2.8.0, opset 13",
        [c("tern-maint", "2022-05-23T09:00:00Z",
           "Thanks for the small repro. The handler computes the scales the wrong way round "
           "for that branch.", "COLLABORATOR", )],
        [ev_referenced("tern-maint", 72007, "2022-06-29T09:00:00Z", sha("tf1990"), TF),
         ev_closed("tern-maint", 72007, "2022-06-30T10:00:00Z")]))
    label(TF, 1990, "wrong_model", "incorrect_numerical_computation", "", "node_conversion")

    out.append(flat(TF, 2003,
        "Keras LSTM with opset 9: ValueError: input shape is unknown for LSTM",
        "pipit-nlp", ["bug", "pending on user response"], "2022-07-01T12:00:00Z",
        "2022-08-15T09:00:00Z", "2022-08-15T09:00:00Z",
        "Converting a Keras model whose LSTM input has `None` timesteps fails with opset 9:\n\n" +
        block('''
  File "/usr/lib/python3.9/site-packages/tf2onnx/rewriter/lstm_tf2_rewriter.py", line 88, in rewriter
    seq_len = g.get_shape(x)[1]
TypeError: 'NoneType' object is not subscriptable
''') + "\n\nWith `--opset 13` it converts.",
        [c("tern-maint", "2022-07-04T08:00:00Z",
           "The rewriter assumes a known rank. We should fall back to the unrewritten loop "
           "when the shape is unknown.", "COLLABORATOR"),
         c("pipit-nlp", "2022-08-10T08:00:00Z", "Confirmed fixed on master.", "NONE")],
        []))
    label(TF, 2003, "crash", "shape_problem", "", "node_conversion")

    out.append(flat(TF, 2015,
        "--tflite: AttributeError: 'NoneType' object has no attribute 'ShapeAsNumpy'",
        "dunlin-edge", ["bug"], "2022-07-18T09:00:00Z", "2022-07-30T09:00:00Z",
        "2022-07-30T09:00:00Z",
        "Converting a quantised tflite model:\n\n" + block('''
python -m tf2onnx.convert --tflite model_int8.tflite --output model.onnx --opset 13
...
  File "tf2onnx/tflite_utils.py", line 420, in parse_tflite_graph
    shape = tensor.ShapeSignatureAsNumpy() if use_sig else tensor.ShapeAsNumpy()
AttributeError: 'NoneType' object has no attribute 'ShapeAsNumpy'
''') + "\n\nI passed `--tflite` the path of the saved_model directory by mistake at first, "
        "but the error stays with the real .tflite file.",
        [c("tern-maint", "2022-07-20T09:00:00Z",
           "Your file was produced with `experimental_new_converter=False`, which writes "
           "subgraphs without tensors for the removed ops. Please re-export with the new "
           "converter; we'll add a check with a proper message.", "COLLABORATOR")],
        [ev_closed("dunlin-edge", 72010, "2022-07-30T09:00:00Z")]))
    label(TF, 2015, "crash", "api_misuse", "", "load_model")

    out.append(flat(TF, 2028, "Add a unit test for ConvTranspose with output_padding",
        "tern-maint", ["enhancement", "contribution welcome"], "2022-08-01T09:00:00Z",
        "2022-09-01T09:00:00Z", "2022-09-01T09:00:00Z",
        "tests/test_backend.py covers Conv2DTranspose only with `output_padding=None`. Add "
        "cases for explicit padding and for the NCHW path so that the upcoming handler "
        "refactor is covered.",
        [c("robin-dev", "2022-08-12T09:00:00Z", "I can take this one.", "CONTRIBUTOR")],
        [ev_xref("robin-dev", 72011, "2022-08-20T09:00:00Z", TF, 2033,
                 "Tests for Conv2DTranspose output_padding", "closed"),
         ev_closed("tern-maint", 72007, "2022-09-01T09:00:00Z")]))
    label(TF, 2028, "unreported", "testing", "", "not_distinguishable")

    out.append(flat(TF, 2041,
        "ValueError: Message onnx.ModelProto exceeds maximum protobuf size of 2GB",
        "shearwater-xl", ["bug"], "2022-09-10T09:00:00Z", "2022-10-02T09:00:00Z",
        "2022-10-02T09:00:00Z",
        "Converting a 2.6 GB saved_model (T5-large) fails at the end:\n\n" + block('''
2022-09-10 09:12:44,001 - INFO - Optimizing ONNX model
2022-09-10 09:20:01,532 - INFO - After optimization: Cast -12 (180->168), Const -410 (1002->592)
Traceback (most recent call last):
  File "tf2onnx/convert.py", line 624, in main
    utils.save_protobuf(args.output, model_proto)
  File "tf2onnx/utils.py", line 263, in save_protobuf
    f.write(proto.SerializeToString())
ValueError: Message onnx.ModelProto exceeds maximum protobuf size of 2GB: 2712838144
''') + "\n\n`--large_model` writes a zip, which our serving stack cannot read.",
        [c("tern-maint", "2022-09-12T09:00:00Z",
           "We can write external data next to the .onnx file when --large_model is combined "
           "with a plain output path.", "COLLABORATOR")],
        [ev_closed("tern-maint", 72007, "2022-10-02T09:00:00Z", sha("tf2041"), TF)]))
    label(TF, 2041, "crash", "incompatibility", "resource", "export")

    out.append(flat(PD, 1050,
        "multiclass_nms3 converts, but TensorRT cannot parse the exported NonMaxSuppression",
        "egret-det", ["bug"], "2023-01-09T03:00:00Z", "2023-02-10T03:00:00Z", None,
        "paddle2onnx 1.0.5 converts PP-YOLOE with `--opset_version 11` without errors, but "
        "trtexec fails on the model:\n\n" + block('''
[01/09/2023-11:02:13] [E] [TRT] ModelImporter.cpp:773: While parsing node number 412 [NonMaxSuppression -> "p2o.NonMaxSuppression.0"]:
[01/09/2023-11:02:13] [E] [TRT] ModelImporter.cpp:776: ERROR: builtin_op_importers.cpp:4870 In function importFallbackPluginImporter:
[8] Assertion failed: creator && "Plugin not found, are the plugin name, version, and namespace correct?"
''') + "\n\nTensorRT 8.4.3, CUDA 11.6",
        [c("heron-pd", "2023-01-10T03:00:00Z",
           "TensorRT 8.4 needs the EfficientNMS plugin; use `--deploy_backend tensorrt` so that "
           "the exporter emits the plugin op instead of ONNX NonMaxSuppression.", "MEMBER")],
        [], state="open"))
    label(PD, 1050, "wrong_model", "incompatibility", "external", "node_conversion")

    # Two lines in REST shape with REST comment objects, as a crawler would store them.
    tl = [ev_labeled("tern-maint", 72007, "2022-10-21T09:00:00Z", "bug"),
          ev_xref("tern-maint", 72007, "2022-10-25T09:00:00Z", TF, 2066,
                  "Fix perm handling for rank-5 Reshape in TransposeOptimizer", "closed"),
          ev_closed("tern-maint", 72007, "2022-10-26T09:00:00Z")]
    body = (
        "A 3D U-Net (Conv3D, NDHWC) converts, but onnxruntime fails at run time:\n\n" + block('''
[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Reshape node. Name:'Reshape__281' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:41 onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, bool) gsl::narrow_cast<int64_t>(input_shape.Size()) == size was false. The input tensor cannot be reshaped to the requested shape. Input shape:{1,32,16,16,16}, requested shape:{1,16,16,16,32}
''') + "\n\nThe transpose optimizer rewrites the `Reshape` shape constant for rank 4 only; "
        "for rank 5 it applies the NHWC->NCHW permutation `[0, 3, 1, 2]`.\n\n"
        "tf2onnx 1.12.0, tensorflow 2.10.0, onnxruntime 1.12.1")
    issue = rest_issue(TF, 2055, "Rank-5 Reshape gets a wrong shape after TransposeOptimizer",
                       "sora-med", 72012, "NONE", ["bug"], "2022-10-20T09:00:00Z",
                       "2022-10-27T09:00:00Z", "2022-10-26T09:00:00Z", body, 2)
    issue["comments"] = [
        rest_comment(TF, 2055, 1285000001, "tern-maint", 72007, "COLLABORATOR",
                     "2022-10-21T09:05:00Z",
                     "Reproduced with a tiny Conv3D model. `--disable_optimizers "
                     "TransposeOptimizer` works around it until the fix is released."),
        rest_comment(TF, 2055, 1285000002, "sora-med", 72012, "NONE", "2022-10-27T09:00:00Z",
                     "Works with the fix, thank you!")]
    issue["timeline"] = tl
    out.append(issue)
    label(TF, 2055, "wrong_model", "algorithmic_error", "", "optimization")

    body = ("I cannot find which opset the converter uses by default. The README says 9, "
            "`python -m tf2onnx.convert --help` says 13 and the conversion log prints 15. "
            "Which one is right?")
    issue = rest_issue(TF, 2070, "Default opset documented inconsistently",
                       "murre-q", 72013, "NONE", ["documentation"], "2022-11-02T09:00:00Z",
                       "2022-11-10T09:00:00Z", "2022-11-10T09:00:00Z", body, 1)
    issue["comments"] = [rest_comment(
        TF, 2070, 1285000003, "tern-maint", 72007, "COLLABORATOR", "2022-11-03T09:00:00Z",
        "The default follows the installed onnx package (15 with onnx 1.12). README updated.")]
    issue["timeline"] = [ev_closed("tern-maint", 72007, "2022-11-10T09:00:00Z", sha("tf2070"), TF)]
    out.append(issue)
    label(TF, 2070, "unreported", "documentation", "", "not_distinguishable")
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "pytorch_issues.json"), "w") as f:
        json.dump(pytorch_issues(), f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(OUT, "tf2onnx_issues.json"), "w") as f:
        json.dump(tf2onnx_issues(), f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(OUT, "threads.jsonl"), "w") as f:
        for obj in threads():
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, "labels.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["repo", "number", "symptom", "cause", "subtype", "stage"])
        for row in sorted(LABELS):
            w.writerow(row)


if __name__ == "__main__":
    main()
