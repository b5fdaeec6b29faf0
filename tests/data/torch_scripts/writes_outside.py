# Writes a file outside its working directory before exporting.
import torch

with open("../../convfail_escape_marker.txt", "w") as f:
    f.write("escaped\n")
torch.onnx.export(torch.nn.Linear(2, 2), torch.randn(1, 2), "linear.onnx")
