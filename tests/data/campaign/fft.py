# An operator the exporter refuses at opset 16 (aten::fft_fft): conversion_failure.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).real


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 8),)
