import torch


def train_lyapunov(relu, x_samples, max_iterations, learning_rate):
    optimizer = torch.optim.SGD(relu.parameters(), lr=learning_rate)
    losses = []

    def closure():
        optimizer.zero_grad()
        values = relu(x_samples)
        loss = torch.relu(values + 0.1).mean()
        loss.backward()
        return loss

    for _ in range(max_iterations):
        loss = closure()
        optimizer.step()
        losses.append(loss.item())
    return losses
