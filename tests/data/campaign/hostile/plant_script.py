# Hostile: tries to make convfail write a host file (HOST_FILE) when it hands the next script in:
# a link where the old oracle copied scripts (its scratch folder's script.py), and links beside
# this script's own copy (the folder convfail hands scripts in; read-only to the worker).
import os

import torch

here = os.path.dirname(os.path.abspath(__file__))
for d in (os.getcwd(), here):
    for name in ["script.py"] + ["script-%d.py" % i for i in range(1, 8)] + \
            ["spec-%d.json" % i for i in range(1, 8)]:
        try:
            p = os.path.join(d, name)
            if os.path.lexists(p):
                os.remove(p)
            os.symlink("HOST_FILE", p)
        except OSError:
            pass


class M(torch.nn.Module):
    def forward(self, x):
        return x + 1


def make_model():
    return M()


def make_inputs():
    return (torch.rand(2, 3),)
