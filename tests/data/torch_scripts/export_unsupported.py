# Exports an operator that torch.onnx 1.13 cannot convert (aten::fft_fft).
import torch


class Spectrum(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).abs()


torch.onnx.export(Spectrum(), torch.randn(16), "spectrum.onnx", opset_version=13)
