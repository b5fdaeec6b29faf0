# A uint8 Add: onnxruntime-node before 1.21.0 has no uint8 Add kernel (ort_failure there),
# later releases run it (success). The `test run --ort` e2e test runs it on both.
import torch


class M(torch.nn.Module):
    def forward(self, x, y):
        return (x + y).float() * 0.5


def make_model():
    return M()


def make_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(0, 100, (2, 8), dtype=torch.uint8, generator=g),
            torch.randint(0, 100, (2, 8), dtype=torch.uint8, generator=g))
