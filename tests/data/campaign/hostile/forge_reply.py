# Hostile: forges the worker's reply (it patches json.dumps in the worker's process): an outcome
# outside the five classes holding terminal escape codes (window title, clipboard), graph edges
# far outside the node count, a duration that is not a number.
import json

import torch

_dumps = json.dumps


def _forged(obj, *a, **k):
    if isinstance(obj, dict) and obj.get("ok") and "durations" in obj:
        obj = dict(obj)
        if "MODE" == "outcome":
            obj["outcome"] = "success\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07"
        else:
            obj["ops"] = ["Add"]
            obj["edges"] = [[0, 99999]]
    return _dumps(obj, *a, **k)


json.dumps = _forged


class M(torch.nn.Module):
    def forward(self, x):
        return x - 1


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
