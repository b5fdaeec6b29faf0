# Hostile: poisons the worker for whatever runs after it: torch.onnx.export swallows any failure
# and exports a stand-in, so a later script's real conversion failure would pass as an export.
import torch

_export = torch.onnx.export


def _poisoned(model, args, f, *a, **k):
    try:
        return _export(model, args, f, *a, **k)
    except Exception:
        class Stand(torch.nn.Module):
            def forward(self, x):
                return x[:, :1] * 0
        return _export(Stand(), args, f, *a, **k)


torch.onnx.export = _poisoned


class M(torch.nn.Module):
    def forward(self, x):
        return x * 3


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
