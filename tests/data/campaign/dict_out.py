# A detection-style output: a list of dicts whose keys are not in sorted order and whose values
# differ in type (float boxes and scores, int64 labels). torch.onnx.export orders the graph's
# outputs by insertion, so the comparison must too: this model is a success.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        return [{"boxes": x * 2, "scores": x.sum(1), "labels": x.argmax(1)}]


def make_model():
    return M()


def make_inputs():
    return (torch.rand(3, 4),)
