# Runs a model but never calls torch.onnx.export.
import torch

model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh())
print(model(torch.ones(1, 3)))
