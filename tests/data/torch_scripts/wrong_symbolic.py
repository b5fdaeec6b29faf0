# Registers a deliberately wrong symbolic for aten::relu (exported as Neg), so the exported model
# computes something else than the eager module.
import torch


def bad_relu(g, x):
    return g.op("Neg", x)


torch.onnx.register_custom_op_symbolic("aten::relu", bad_relu, 9)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)) * 2.0


torch.onnx.export(Block(), torch.randn(4, 6), "block.onnx", opset_version=13)
