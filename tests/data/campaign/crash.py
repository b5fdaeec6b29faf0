# The torch worker dies (SIGSEGV) in the middle of the export: that model's outcome, and the
# campaign goes on with a fresh worker.
import ctypes

import torch


class M(torch.nn.Module):
    def forward(self, x):
        if torch.onnx.is_in_onnx_export():
            ctypes.string_at(0)
        return x + 1


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
