# torch.relu on an int16 tensor exports at opset 16 (Relu-14 allows int16) and passes the checker,
# but the pinned ONNX Runtime has no int16 Relu kernel: "Could not find an implementation for
# Relu(14) node with name '/Relu'", an ort_failure.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


def make_model():
    return M()


def make_inputs():
    return (torch.arange(-6, 6, dtype=torch.int16).reshape(3, 4),)
