import numpy as np
import torch
from torch import optim

from data_util import load_mnist


def build_model(input_dim, output_dim):
    model = torch.nn.Sequential()
    model.add_module("linear_1", torch.nn.Linear(input_dim, 512, bias=False))
    model.add_module("relu_1", torch.nn.ReLU())
    model.add_module("dropout_1", torch.nn.Dropout(0.2))
    model.add_module("linear_2", torch.nn.Linear(512, 512, bias=False))
    model.add_module("relu_2", torch.nn.ReLU())
    model.add_module("dropout_2", torch.nn.Dropout(0.2))
    # no softmax layer: CrossEntropyLoss applies log-softmax itself
    model.add_module("linear_3", torch.nn.Linear(512, output_dim, bias=False))
    return model


def train(model, loss, optimizer, x, y):
    model.train()
    optimizer.zero_grad()
    fx = model.forward(x)
    output = loss.forward(fx, y)
    output.backward()
    optimizer.step()
    return output.item()


def predict(model, x):
    model.eval()
    with torch.no_grad():
        output = model.forward(x)
    return output.numpy().argmax(axis=1)


def main():
    torch.manual_seed(42)
    tr_x, te_x, tr_y, te_y = load_mnist()
    tr_x = torch.from_numpy(tr_x).float()
    te_x = torch.from_numpy(te_x).float()
    tr_y = torch.from_numpy(tr_y).long()

    n_examples, n_features = tr_x.size()
    n_classes = 10
    model = build_model(n_features, n_classes)
    loss = torch.nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters())
    batch_size = 100

    for i in range(20):
        cost = 0.0
        num_batches = n_examples // batch_size
        for k in range(num_batches):
            start, end = k * batch_size, (k + 1) * batch_size
            cost += train(model, loss, optimizer, tr_x[start:end], tr_y[start:end])
        pred_y = predict(model, te_x)
        print("Epoch %d, cost = %f, acc = %.2f%%" % (i + 1, cost / num_batches, 100.0 * np.mean(pred_y == te_y)))


if __name__ == "__main__":
    main()
