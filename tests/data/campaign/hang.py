# The export never ends (an endless loop while tracing): after --timeout the model is invalid,
# not a conversion failure, since a timeout decides nothing about the converter.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        while torch.onnx.is_in_onnx_export():
            pass
        return x + 1


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
