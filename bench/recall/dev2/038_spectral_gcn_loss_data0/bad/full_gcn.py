import time

import torch
import torch.nn as nn


def run(net, train_data, train_labels, optimizer, num_epochs, batch_size, l2_regularization):
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        running_loss = 0.0
        num_batches = 0
        t_start = time.time()
        perm = torch.randperm(train_data.shape[0])
        for i in range(0, train_data.shape[0], batch_size):
            idx = perm[i:i + batch_size]
            x, y = train_data[idx], train_labels[idx]
            optimizer.zero_grad()
            y_pred = net(x)
            loss = loss_fn(y_pred, y) + l2_regularization * sum(p.pow(2).sum() for p in net.parameters())
            loss.backward()
            optimizer.step()
            loss_train = loss.data[0]  # expect: TCK115
            running_loss += loss_train
            num_batches += 1
        print("epoch= %d, loss(train)= %.3f, time= %.3f" % (epoch + 1, running_loss / num_batches, time.time() - t_start))
