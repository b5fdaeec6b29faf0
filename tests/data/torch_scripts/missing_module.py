# Imports a module that is not installed anywhere.
import torch
import convfail_no_such_module.layers as layers

torch.onnx.export(layers.Model(), torch.randn(1, 2), "missing.onnx")
