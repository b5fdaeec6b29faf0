# Exports into an open file, then checks the result with onnxruntime itself (as many reports do).
# onnxruntime is not needed: convfail does that comparison, so the import gets a stub.
import numpy as np
import onnxruntime as ort
import torch

model = torch.nn.Sequential(torch.nn.Conv1d(2, 3, 3), torch.nn.LeakyReLU(0.2))
x = torch.randn(1, 2, 10)
with open("conv.onnx", "wb") as fh:
    torch.onnx.export(model, x, fh, opset_version=13)
session = ort.InferenceSession("conv.onnx", providers=["CPUExecutionProvider"])
(got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)
