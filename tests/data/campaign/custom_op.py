# Exports (a custom domain's operator, which the checker does not know and lets through) but
# ONNX Runtime has no kernel for it: ort_failure.
import torch


class NoKernel(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def symbolic(g, x):
        return g.op("convfail.test::NoSuchKernel", x).setType(x.type())


class M(torch.nn.Module):
    def forward(self, x):
        return NoKernel.apply(x) * 2


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
