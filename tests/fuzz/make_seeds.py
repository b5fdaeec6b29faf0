#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/seed-*.

Seeds come from the project's own fixtures only: tests/data, the answers of the fake GitHub
server (BUILD/fake-github, started here on 127.0.0.1 and stopped at the end), and the inputs
written below. Run it again after a fixture changes; files not named seed-* (regression inputs of
past findings) are left alone.
    /usr/bin/python3 tests/fuzz/make_seeds.py BUILD_DIR   (Debian's python, for python3-onnx)
"""
import json
import os
import pathlib
import subprocess
import sys
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / ("seed-" + name)).write_bytes(data)


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def fake_github(build):
    """The fake server's answers: a REST page with its Link header, one issue's comments and
    timeline, and a GraphQL page of the crawler's own query."""
    server = subprocess.Popen([str(pathlib.Path(build) / "fake-github"), "--issues", "4"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        listing = url + "/repos/acme/conv/issues?state=all&per_page=2&sort=updated&direction=asc"
        with urllib.request.urlopen(listing, timeout=10) as r:
            page, link = json.load(r), r.headers["Link"]
        details = {}
        for kind in ("comments", "timeline"):
            with urllib.request.urlopen(f"{url}/repos/acme/conv/issues/1/{kind}", timeout=10) as r:
                details[kind] = json.load(r)
        query = subprocess.run([str(pathlib.Path(build) / "tests" / "fuzz" / "print_query")],
                               capture_output=True, text=True, check=True).stdout
        body = {"query": query, "variables": {
            "owner": "acme", "name": "conv", "first": 2, "after": None, "since": None,
            "labels": None, "states": None, "comments": 100, "withTimeline": True}}
        req = urllib.request.Request(url + "/graphql", data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer fuzz",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            graphql = json.load(r)
    finally:
        server.terminate()
        server.wait(timeout=10)
    return page, link, details, graphql


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    page, link, details, graphql = fake_github(sys.argv[1])
    # Link header and the REST page (alone, and with issue 1's comments and timeline inline).
    write("link_header", "fake_github", link)
    write("link_header", "unquoted", '<https://api.github.com/x?page=3>; rel=next; title="a, b"')
    write("rest_page", "fake_github", compact(page))
    with_details = [dict(page[0], _comments=details["comments"], _timeline=details["timeline"])]
    write("rest_page", "fake_github_details", compact(with_details))
    write("graphql_page", "fake_github", compact(graphql))
    fft = json.loads((ROOT / "tests/data/campaign/issue_fft.json").read_text())
    write("rest_page", "issue_fft", compact(fft))

    # import: dumps as users pass them (a JSON array, JSONL with embedded threads).
    for name in ("campaign/issue_fft.json", "bisect/issue_uint8_script.json"):
        write("import", pathlib.Path(name).stem, (ROOT / "tests/data" / name).read_text())
    thread = dict(page[0], comments=details["comments"], timeline=details["timeline"])
    write("import", "fake_github.jsonl", "\n".join(compact(i) for i in [thread] + page[1:]) + "\n")
    write("import", "flattened.jsonl", compact({
        "repo": "acme/conv", "number": 7, "title": "t", "body": "b", "state": "open",
        "labels": ["bug"], "created_at": "2024-01-01T00:00:00+01:00",
        "comments": [{"author": "a", "body": "c", "created_at": "2024-01-02T00:00:00Z"}]}) + "\n")
    for i, issue in enumerate(fft + [thread]):
        write("issue_schema", f"issue{i}", compact(issue))
    write("issue_schema", "comments", compact(details["comments"]))
    write("issue_schema", "timeline", compact(details["timeline"]))

    # Nesting past kMaxJsonDepth (64): the depth checks' refusals. (A page 30,000 levels deep,
    # which overflowed the stack before pages had a depth bound, is kept as a finding.)
    deep = "[" * 100 + "]" * 100
    write("import", "deep", '{"repo":"a/b","number":1,"x":%s}\n' % deep)
    write("issue_schema", "deep", '{"number":1,"x":%s}' % deep)
    write("rest_page", "deep", '[{"number":1,"x":%s}]' % deep)
    write("graphql_page", "deep",
          '{"data":{"repository":{"issues":{"nodes":[{"number":1,"title":%s}]}}}}' % deep)
    write("worker_reply", "deep", '{"ok":true,"ops":%s}' % deep)

    # The worker's replies (campaign/run/worker_reply.h): accepted and refused shapes.
    replies = {
        "exported": {"ok": True, "outcome": None, "stage": "exported", "nodes": 3,
                     "ops": ["Conv", "Relu", "Add"], "edges": [[0, 1], [1, 2]],
                     "durations": {"build": 0.5, "export": 1.25}},
        "conversion_failure": {"ok": True, "outcome": "conversion_failure", "stage": "export",
                               "error": "RuntimeError: Exporting the operator 'aten::fft_fft'",
                               "error_type": "RuntimeError"},
        "failed": {"ok": False, "error": "no such model", "stage": "build"},
        "forged": {"ok": True, "outcome": "success\u001b]0;x\u0007", "edges": [[0, 99]]},
    }
    for name, reply in replies.items():
        write("worker_reply", name, compact(reply))

    # CSV and the labels CSV (labeling/label_io.h).
    labels = ("repo,number,rater,symptom,cause,subtype,stage,note\n"
              "acme/conv,1,R1,Wrong Code,Incompatability,External,Node Transformation,\"a, b\"\n"
              "acme/conv,2,R2,crash,type_problem,node,Not Dis.,\n"
              "acme/conv,99,R1,crash,,,,\n")
    write("label_csv", "raters", labels)
    write("label_csv", "export", "repo,number,annotator,symptom,cause,subtype,stage,symptom_note,"
          "cause_note,subtype_note,stage_note,kind\r\nacme/conv,3,fuzz,crash,,,,'=1+2,\"x\"\"y\","
          ",,adjudication\r\n")
    write("csv", "labels", labels)
    write("csv", "quoted", "\ufeffa,\"b,\"\"c\"\"\nd\",e\r\n'=SUM(A1),-1.5,+x\n\n,,\n")

    # Issue references, times, text.
    write("issue_ref", "short", "pytorch/pytorch#123")
    write("issue_ref", "path", "onnx/tensorflow-onnx/pull/2000")
    write("issue_ref", "url", "https://github.com/microsoft/onnxruntime/issues/42/?x=1#frag")
    write("iso8601", "utc", "2024-01-02T01:04:05Z")
    write("iso8601", "offset", "2024-01-01T23:34:05.123-01:30")
    write("iso8601", "compact_offset", "2024-02-29 03:04:05+0200")
    write("iso8601", "int", "-9223372036854775808")
    write("text", "escapes", b"plain \x1b]0;title\x07 \xe2\x80\xae bidi \xc2\x85 c1 \\ back")
    write("text", "invalid_utf8", b"\xf0\x9f\x98\x80 \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82")
    write("text", "multibyte", "\u00e9\u20ac\U0001f600 tab\tnew\nline")

    # Markdown: fences, indented code, and what the HTML renderer must neutralise.
    md = ("Export fails:\n\n```python\nimport torch\ntorch.onnx.export(m, x, 'm.onnx')\n```\n\n"
          "    indented code\n\n~~~~\nopen fence\n")
    write("markdown", "fences", md)
    write("markdown_html", "fences", md)
    write("markdown_html", "hostile", "<script>alert(1)</script>\n[a](javascript:alert(1)) "
          "[b](JaVaScRiPt&#58;x) ![i](data:image/svg+xml;base64,PHN2Zz4=) "
          "![j](data:image/png;base64,iVBOR) <img src=x onerror=y>\n\n| a | b |\n|---|:-:|\n| 1 |\n"
          "- [x] done\n~~gone~~ www.example.com\n")
    # Artifacts: links to models and hosts, and the project's torch scripts as code blocks.
    links = ("Model: https://github.com/user-attachments/files/123/model.onnx.zip and "
             "[weights](https://example.com/a/b/model.onnx) "
             "https://drive.google.com/file/d/abc/view\n")
    write("artifact_scan", "links", links)
    for script in sorted((ROOT / "tests/data/torch_scripts").glob("*.py"))[:4]:
        write("artifact_scan", script.stem, links + "\n```python\n" + script.read_text() + "```\n")

    # Error signatures.
    write("signature", "ort", "[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model from "
          "/tmp/x/m.onnx failed: node 'conv_12' in node (/ln/LayerNormalization) 0x7ffd1234")
    write("signature", "torch", "RuntimeError: Exporting the operator 'aten::fft_fft' to ONNX "
          "opset version 16 is not supported.\nTraceback ...")
    write("signature", "windows", "C:\\Users\\x\\m.onnx: 1.5e-3 mismatch \"v11 defined in (%v11")

    # TensorProto: made by python3-onnx when it is installed, else skipped.
    try:
        import numpy as np
        from onnx import numpy_helper
    except ImportError:
        print("make_seeds: no python3-onnx, tensor_proto seeds not written")
    else:
        arrays = {"float": np.arange(6, dtype=np.float32).reshape(2, 3),
                  "int64": np.array([1, -2, 3], dtype=np.int64),
                  "bool": np.array([True, False]), "uint8": np.zeros((2, 2), dtype=np.uint8),
                  "string": np.array([b"a", b"bc"], dtype=object),
                  "float16": np.ones(3, dtype=np.float16)}
        for name, a in arrays.items():
            write("tensor_proto", name, numpy_helper.from_array(a, name).SerializeToString())
        typed = numpy_helper.from_array(np.array([1.5, 2.5], dtype=np.float32), "typed")
        typed.float_data.extend([1.5, 2.5])
        typed.ClearField("raw_data")
        write("tensor_proto", "typed_float", typed.SerializeToString())
    print("make_seeds: corpora written under", CORPUS)


if __name__ == "__main__":
    main()
