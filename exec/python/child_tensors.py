"""What every sandboxed Python child of convfail shares (the PyTorch repro harness,
repro/torch_harness/harness.py, and the campaign's warm worker, campaign/harness/campaign_worker.py;
both find this folder on PYTHONPATH, exec/python_child's python_worker_spec puts it there):
the tensors of a nested output as one flat list, the one way to save tensors as TensorProto
files, and the one reader of an ONNX graph's operators and edges."""

import os


def flatten(obj, out):
    """Appends the tensors of obj to out, in order, and returns out. Dict values come in
    insertion order, the order torch.onnx.export gives the graph's outputs."""
    import torch

    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            flatten(x, out)
    elif isinstance(obj, dict):
        for k in obj:
            flatten(obj[k], out)
    return out


def save_tensors(tensors, names, folder, prefix):
    """Writes tensors as folder/PREFIX_i.pb (TensorProto named names[i], else PREFIX_i).
    Returns (file names, None), or (the files written so far, why) when a tensor has no numpy
    form (bfloat16, sparse, quantized...)."""
    from onnx import numpy_helper

    os.makedirs(folder, exist_ok=True)
    files = []
    for i, t in enumerate(tensors):
        try:
            if t.is_sparse:
                t = t.to_dense()
            arr = t.detach().cpu().resolve_conj().numpy()
        except Exception as e:  # bfloat16, quantized...: not representable
            return files, "tensor %d not convertible: %s" % (i, e)
        proto = numpy_helper.from_array(arr, names[i] if i < len(names) else "%s_%d" % (prefix, i))
        name = "%s_%d.pb" % (prefix, i)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(proto.SerializeToString())
        files.append(name)
    return files, None


def op_name(node):
    """An operator's name as convfail's C++ names it (campaign/analysis/op_graph): its type for the default
    ONNX domain, DOMAIN:TYPE for any other."""
    domain = node.domain
    return node.op_type if domain in ("", "ai.onnx") else "%s:%s" % (domain, node.op_type)


def graph_of(model):
    """Operator names in node order and edges a->b (an output of node a is an input of b)."""
    producer = {}
    ops, edges = [], set()
    for i, n in enumerate(model.graph.node):
        ops.append(op_name(n))
        for o in n.output:
            producer[o] = i
    for i, n in enumerate(model.graph.node):
        for x in n.input:
            if x in producer and producer[x] != i:
                edges.add((producer[x], i))
    return ops, sorted([a, b] for a, b in edges)
