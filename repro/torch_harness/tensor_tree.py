"""The tensors of a nested output or input (tensors in tuples, lists and dicts) as one flat list:
shared by the PyTorch repro harness (harness.py) and the campaign's warm worker
(testing/harness/campaign_worker.py), which finds this folder on PYTHONPATH."""


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
