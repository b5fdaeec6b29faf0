# Opens a network connection before exporting (as scripts that download weights do). It only ever
# talks to a listener it starts itself on loopback; in the sandbox even that must fail.
import socket
import threading

import torch

server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("127.0.0.1", 0))
server.listen(1)
threading.Thread(target=lambda: server.accept(), daemon=True).start()
client = socket.create_connection(server.getsockname(), timeout=5)
client.close()
print("network reachable")
torch.onnx.export(torch.nn.Linear(2, 2), torch.randn(1, 2), "downloaded.onnx")
