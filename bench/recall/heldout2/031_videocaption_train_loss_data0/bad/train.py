import torch
from torch.nn.utils import clip_grad_value_


def train(loader, model, crit, optimizer, lr_scheduler, opt):
    model.train()
    for epoch in range(opt["epochs"]):
        iteration = 0
        for data in loader:
            torch.cuda.synchronize()
            fc_feats = data["fc_feats"].cuda()
            labels = data["labels"].cuda()
            masks = data["masks"].cuda()
            optimizer.zero_grad()
            seq_probs, _ = model(fc_feats, labels, "train")
            loss = crit(seq_probs, labels[:, 1:], masks[:, 1:])
            loss.backward()
            clip_grad_value_(model.parameters(), opt["grad_clip"])
            optimizer.step()
            train_loss = loss.data[0]  # expect: TCK115
            torch.cuda.synchronize()
            iteration += 1
            print("iter %d (epoch %d), train_loss = %.6f" % (iteration, epoch, train_loss))
        lr_scheduler.step()
