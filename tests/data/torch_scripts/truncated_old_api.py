# An excerpt cut off mid-statement after the export, calling export with an argument that
# torch 1.13 no longer takes: the harness runs the prefix that compiles and drops the argument.
import torch

net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Sigmoid())
x = torch.randn(3, 4)
torch.onnx.export(net, x, "old.onnx", example_outputs=net(x), opset_version=13)
print("exported, now comparing with
