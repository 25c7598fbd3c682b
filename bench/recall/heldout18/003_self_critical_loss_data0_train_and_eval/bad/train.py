import time

import torch
from torch.utils.data import DataLoader, TensorDataset

import eval_utils
import misc_utils as utils


def make_loader(n, shuffle):
    labels = torch.randint(0, 500, (n, 17))
    masks = torch.ones(n, 17)
    return DataLoader(TensorDataset(torch.randn(n, 128), labels, masks), batch_size=50, shuffle=shuffle)


def train(max_epochs=30, grad_clip=0.1, val_every=500):
    model = utils.CaptionModel().cuda()
    crit = utils.LanguageModelCriterion()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    train_loader, val_loader = make_loader(5000, True), make_loader(500, False)

    iteration = 0
    model.train()
    for epoch in range(max_epochs):
        for fc_feats, labels, masks in train_loader:
            start = time.time()
            fc_feats, labels, masks = fc_feats.cuda(), labels.cuda(), masks.cuda()

            optimizer.zero_grad()
            loss = crit(model(fc_feats, labels), labels[:, 1:], masks[:, 1:])
            loss.backward()
            utils.clip_gradient(optimizer, grad_clip)
            optimizer.step()
            train_loss = loss.data[0]  # expect: TCK115
            print("iter {} (epoch {}), train_loss = {:.3f}, time/batch = {:.3f}".format(
                iteration, epoch, train_loss, time.time() - start))

            iteration += 1
            if iteration % val_every == 0:
                val_loss = eval_utils.eval_split(model, crit, val_loader)
                print("validation loss", val_loss)


if __name__ == "__main__":
    train()
