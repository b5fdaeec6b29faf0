# Hostile: exports fine, then swaps model.onnx for a FIFO before the worker replies (it patches
# onnx.load, which the worker calls right after torch.onnx.export wrote the model). Opening the
# FIFO would block convfail forever; --timeout must still hold.
import glob
import os

import onnx
import torch

_load = onnx.load


def _swap(f, *a, **k):
    model = _load(f, *a, **k)
    for p in glob.glob(os.path.join(os.getcwd(), "m*", "model.onnx")):
        os.remove(p)
        os.mkfifo(p)
    return model


onnx.load = _swap


class M(torch.nn.Module):
    def forward(self, x):
        return x * 2


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
