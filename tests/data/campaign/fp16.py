# A float16 model: float16 inputs x and y, a float16 weight, two float16 outputs, only operators
# ONNX Runtime runs on float16 in every release (Concat, Transpose, Slice). ONNX Runtime 1.14.0's
# Node binding holds no float16 tensor: the harness feeds and reads it as float32 through Casts
# at the model's boundary (tests/e2e/campaign_float16.sh).
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.full((3, 2), 0.5, dtype=torch.float16))

    def forward(self, x, y):
        return torch.cat([x, self.w], dim=1).t(), y[:, 1:3]


def make_model():
    return M()


def make_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.rand(3, 2, generator=g).half(), torch.rand(3, 4, generator=g).half())
