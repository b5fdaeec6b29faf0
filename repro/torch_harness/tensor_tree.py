"""The tensors of a nested output or input (tensors in tuples, lists and dicts) as one flat list:
shared by the PyTorch repro harness (harness.py) and the campaign's warm worker
(testing/harness/campaign_worker.py), which finds this folder on PYTHONPATH."""


def flatten(obj, out, sort_keys=False):
    """Appends the tensors of obj to out, in order, and returns out. Dict values come in
    insertion order, or by sorted key with sort_keys (the campaign worker's stored order)."""
    import torch

    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            flatten(x, out, sort_keys)
    elif isinstance(obj, dict):
        for k in (sorted(obj) if sort_keys else obj):
            flatten(obj[k], out, sort_keys)
    return out
