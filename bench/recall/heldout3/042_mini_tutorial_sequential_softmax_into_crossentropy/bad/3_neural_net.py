import torch
from torch.autograd import Variable


def build_model(input_dim, output_dim):
    model = torch.nn.Sequential()
    model.add_module("linear_1", torch.nn.Linear(input_dim, 512, bias=False))
    model.add_module("sigmoid_1", torch.nn.Sigmoid())
    model.add_module("linear_2", torch.nn.Linear(512, output_dim, bias=False))
    model.add_module("softmax", torch.nn.Softmax())
    return model


def train(model, loss, optimizer, x_val, y_val):
    x = Variable(x_val, requires_grad=False)
    y = Variable(y_val, requires_grad=False)
    optimizer.zero_grad()
    fx = model.forward(x)
    output = loss.forward(fx, y)  # expect: TCK605
    output.backward()
    optimizer.step()
    return output.item()


model = build_model(784, 10)
loss = torch.nn.CrossEntropyLoss(size_average=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
