import random
import string

import torch
import torch.nn as nn

from model import RNN

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
categories = ["English", "French", "Italian"]
names = {
    "English": ["Smith", "Johnson", "Williams"],
    "French": ["Dubois", "Lefevre", "Moreau"],
    "Italian": ["Rossi", "Russo", "Ferrari"],
}


def line_to_tensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


def random_training_pair():
    category = random.choice(categories)
    line = random.choice(names[category])
    return torch.tensor([categories.index(category)]), line_to_tensor(line)


def main():
    random.seed(0)
    rnn = RNN(n_letters, 128, len(categories))
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.005)
    criterion = nn.NLLLoss()
    for it in range(1, 2001):
        category_tensor, line_tensor = random_training_pair()
        hidden = rnn.init_hidden()
        optimizer.zero_grad()
        for i in range(line_tensor.size(0)):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        optimizer.step()
        if it % 500 == 0:
            print(it, loss.item())


if __name__ == "__main__":
    main()
