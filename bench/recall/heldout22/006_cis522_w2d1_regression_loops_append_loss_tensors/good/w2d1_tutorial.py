# Linear regression by hand and with nn.Linear (tutorial notebook exported as a script).
import time

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
from tqdm.auto import trange

torch.manual_seed(2023)

N = 200
original_w, original_b = 2.5, -1.0
X = torch.linspace(-3, 3, N).reshape(1, -1)
y = (original_w * X + original_b + 0.5 * torch.randn(1, N)).T


def linear_regression(X, w, b):
    """Linear model: one weight and one bias applied to every sample."""
    return w * X + b


def squared_error(y_hat, y):
    """Element-wise squared error."""
    return (y_hat - y) ** 2


def gradient_descent(w, b, lr):
    """One plain gradient-descent update, then clear the gradients."""
    with torch.no_grad():
        w -= w.grad * lr
        b -= b.grad * lr
        w.grad.zero_()
        b.grad.zero_()
    return (w, b)


# Section 3.5: training the hand-written model with autograd
lr = 1e-2
num_epochs = 1000
net = linear_regression
loss = squared_error

y_train = y.squeeze()

w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

losses = []
epoch_range = trange(num_epochs, desc="loss: ", leave=True)
for epoch in epoch_range:
    if losses:
        epoch_range.set_description("loss: {:.6f}".format(losses[-1]))
        epoch_range.refresh()

    y_hat = net(X.squeeze(), w, b)
    l = loss(y_hat, y_train).mean()

    l.backward()
    w, b = gradient_descent(w, b, lr)

    losses.append(l.detach())
    time.sleep(0.01)

y_hat = net(X.squeeze(), w, b).reshape(-1, 1)
plt.figure(figsize=(14, 5))
plt.subplot(1, 2, 1)
plt.plot(range(num_epochs), losses)
plt.xlabel("epoch")
plt.ylabel("loss (a.u.)")
plt.subplot(1, 2, 2)
plt.scatter(X.squeeze(), y_train, label="original data")
plt.plot(X.reshape(-1, 1), y_hat.detach(), label="regression", color="red", linewidth=3.0)
plt.legend()
plt.show()

# Section 4: the same model as nn.Linear trained with torch.optim
net = nn.Sequential(nn.Linear(1, 1))
with torch.no_grad():
    net[0].weight.fill_(0)
    net[0].bias.fill_(0)

loss = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-2)

losses = []
epoch_range = trange(num_epochs, desc="loss: ", leave=True)
for epoch in epoch_range:
    if losses:
        epoch_range.set_description("loss: {:.6f}".format(losses[-1]))
        epoch_range.refresh()

    l = loss(net(X.T), y)
    l.backward()
    optimizer.step()
    optimizer.zero_grad()
    l = loss(net(X.T), y)
    losses.append(l.detach())

y_hat = net(X.T).reshape(-1, 1)
plt.figure(figsize=(14, 5))
plt.subplot(1, 2, 1)
plt.plot(range(num_epochs), losses)
plt.xlabel("epoch")
plt.ylabel("loss (a.u.)")
plt.subplot(1, 2, 2)
plt.scatter(X.squeeze(), y.squeeze(), label="original data")
plt.plot(X.reshape(-1, 1), y_hat.detach(), label="regression", color="red", linewidth=3.0)
plt.legend()
plt.show()
