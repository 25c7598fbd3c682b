# Appendix A (mathematics, deep learning, PyTorch), exported from the chapter notebook:
# a two-layer MNIST classifier trained by hand, then with an optimizer.
import numpy as np
import torch
import torchvision as TV
from matplotlib import pyplot as plt


def nn(x, w1, w2):
    l1 = torch.relu(x @ w1)  # hidden layer
    return l1 @ w2           # class scores


mnist_data = TV.datasets.MNIST("MNIST", train=True, download=True)

# A.4: plain gradient descent on the two weight matrices
w1 = torch.randn(784, 200, requires_grad=True)
w2 = torch.randn(200, 10, requires_grad=True)
lr = 0.0001
epochs = 2500
batch_size = 1000
losses = []
lossfn = torch.nn.CrossEntropyLoss()
for i in range(epochs):
    rid = np.random.randint(0, mnist_data.data.shape[0], size=batch_size)
    x = mnist_data.data[rid].float().flatten(start_dim=1)
    x /= x.max()
    pred = nn(x, w1, w2)
    target = mnist_data.targets[rid]
    loss = lossfn(pred, target)
    losses.append(loss.item())
    loss.backward()
    with torch.no_grad():
        w1 -= lr * w1.grad
        w2 -= lr * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

plt.figure(figsize=(10, 7))
plt.xlabel("Training Time", fontsize=22)
plt.ylabel("Loss", fontsize=22)
plt.plot(losses)

# A.5: the same network trained with Adam
w1 = torch.randn(784, 200, requires_grad=True)
w2 = torch.randn(200, 10, requires_grad=True)
lr = 0.001
epochs = 5000
batch_size = 500
losses = []
optim = torch.optim.Adam(params=[w1, w2], lr=lr)
for i in range(epochs):
    rid = np.random.randint(0, mnist_data.data.shape[0], size=batch_size)
    x = mnist_data.data[rid].float().flatten(start_dim=1)
    x /= x.max()
    pred = nn(x, w1, w2)
    target = mnist_data.targets[rid]
    loss = lossfn(pred, target)
    losses.append(loss.item())
    loss.backward()
    optim.step()
    optim.zero_grad()

plt.figure(figsize=(10, 7))
plt.xlabel("Training Time", fontsize=22)
plt.ylabel("Loss", fontsize=22)
plt.plot(losses)
plt.show()
