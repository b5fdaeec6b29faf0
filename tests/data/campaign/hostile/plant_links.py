# Hostile: plants symbolic links where the worker leaves its files (model.onnx to a host file,
# set_0 to a host folder, named by HOST_FILE and HOST_DIR, which the test fills in), then fails its
# export. convfail must never follow them: no host byte may reach the store or a bundle.
import glob
import os

import torch

for d in glob.glob(os.path.join(os.getcwd(), "m*")):
    for name, target in (("model.onnx", "HOST_FILE"), ("set_0", "HOST_DIR"),
                         ("program.py", "HOST_FILE")):
        try:
            os.symlink(target, os.path.join(d, name))
        except OSError:
            pass


class M(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).real  # refused by the exporter at opset 16


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 8),)
