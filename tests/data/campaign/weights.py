# A small two-layer perceptron whose weights are initializers (tests/e2e/campaign_external_data.sh
# saves them as external data files with --external-data-export).
import torch


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))


def make_inputs():
    return (torch.rand(2, 8),)
