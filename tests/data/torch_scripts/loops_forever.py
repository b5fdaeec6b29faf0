# Never finishes: spins before it reaches the export.
import torch

model = torch.nn.Linear(2, 2)
n = 0
while True:
    n += 1
torch.onnx.export(model, torch.randn(1, 2), "never.onnx")
