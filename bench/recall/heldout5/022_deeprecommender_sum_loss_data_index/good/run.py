from math import sqrt

import torch

import model


def do_eval(encoder, eval_batches):
    encoder.eval()
    denom = 0.0
    total_epoch_loss = 0.0
    with torch.no_grad():
        for eval_ratings, src in eval_batches:
            outputs = encoder(src.cuda().to_dense())
            loss, num_ratings = model.MSEloss(outputs, eval_ratings.cuda().to_dense())
            total_epoch_loss += loss.item()
            denom += num_ratings.item()
    return sqrt(total_epoch_loss / denom)


def train(encoder, optimizer, train_batches, eval_batches, num_epochs):
    for epoch in range(num_epochs):
        encoder.train()
        t_loss = 0.0
        for i, mb in enumerate(train_batches):
            inputs = mb.cuda().to_dense()
            optimizer.zero_grad()
            outputs = encoder(inputs)
            loss, num_ratings = model.MSEloss(outputs, inputs)
            loss = loss / num_ratings
            loss.backward()
            optimizer.step()
            t_loss += loss.item()
        print(epoch, t_loss / (i + 1), do_eval(encoder, eval_batches))
