# Hostile: leaves in its folder a tree 200 folders deep (past any fixed depth of a recursive
# removal) with folders of mode 0500 and 0000 (which even their owner must fix before emptying),
# writes "ready" beside it, then never finishes its export. The test signals convfail meanwhile:
# every temporary folder must be gone after it exits (issue #49 item 10).
import os

import torch

top = os.path.join(os.getcwd(), "tree")
path = top
for i in range(200):
    path = os.path.join(path, "d")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "f"), "w") as f:
        f.write(str(i))
for name, mode in (("ro", 0o500), ("none", 0o000)):
    os.makedirs(os.path.join(top, name, "sub"), exist_ok=True)
    with open(os.path.join(top, name, "sub", "f"), "w") as f:
        f.write("x")
    os.chmod(os.path.join(top, name, "sub"), mode)
    os.chmod(os.path.join(top, name), mode)
with open(os.path.join(os.getcwd(), "ready"), "w") as f:
    f.write("ready")


class M(torch.nn.Module):
    def forward(self, x):
        while torch.onnx.is_in_onnx_export():
            pass
        return x + 1


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
