import torch
import torch.nn as nn
from torch.autograd import Variable

x_data = [0, 1, 0, 2, 3, 3]
one_hot_lookup = [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
y_data = [1, 0, 2, 3, 3, 4]
x_one_hot = [one_hot_lookup[x] for x in x_data]

inputs = Variable(torch.Tensor(x_one_hot))
labels = Variable(torch.LongTensor(y_data))
inputs.cuda()  # expect: TCK202
labels.cuda()  # expect: TCK202


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.rnn = nn.RNN(input_size=5, hidden_size=5, batch_first=True)

    def forward(self, hidden, x):
        x = x.view(1, 1, 5)
        out, hidden = self.rnn(x, hidden)
        return hidden, out.view(-1, 5)


model = Model()
model.cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
for epoch in range(100):
    optimizer.zero_grad()
    loss = 0
    hidden = Variable(torch.zeros(1, 1, 5)).cuda()
    for input, label in zip(inputs, labels):
        hidden, output = model(hidden, input)
        loss += criterion(output, label.view(1))
    loss.backward()
    optimizer.step()
