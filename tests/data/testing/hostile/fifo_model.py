# Hostile: exports fine, then swaps model.onnx for a FIFO before the worker replies (it patches
# onnx.load_from_string, which the worker calls right after writing the model). Opening the FIFO
# would block convfail forever; --timeout must still hold.
import glob
import os

import onnx
import torch

_load = onnx.load_from_string


def _swap(data, *a, **k):
    for p in glob.glob(os.path.join(os.getcwd(), "m*", "model.onnx")):
        os.remove(p)
        os.mkfifo(p)
    return _load(data, *a, **k)


onnx.load_from_string = _swap


class M(torch.nn.Module):
    def forward(self, x):
        return x * 2


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
