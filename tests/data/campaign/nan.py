# The eager output holds NaN: invalid, never a defect.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        return torch.log(-x - 1)


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
