import os

import numpy as np
import torch
import torch.optim as optim
from torch import nn
from torch.autograd import Variable

import caption_utils as utils
from captioner import S2VTModel


def self_critical_reward(model, fc_feats, data, seq_preds):
    with torch.no_grad():
        _, greedy = model(fc_feats, mode="inference")
    gts = data["labels"][:, 1:]
    sample_hits = (seq_preds.cpu() == gts[:, : seq_preds.shape[1]]).float().mean(1)
    greedy_hits = (greedy.cpu() == gts[:, : greedy.shape[1]]).float().mean(1)
    return (sample_hits - greedy_hits).unsqueeze(1).expand_as(seq_preds).numpy()


def train(loader, model, crit, optimizer, lr_scheduler, opt, rl_crit=None):
    model.train()
    model = nn.DataParallel(model)
    for epoch in range(opt["epochs"]):
        iteration = 0
        sc_flag = opt["self_crit_after"] != -1 and epoch >= opt["self_crit_after"]

        for data in loader:
            fc_feats = Variable(data["fc_feats"]).cuda()
            labels = Variable(data["labels"]).long().cuda()
            masks = Variable(data["masks"]).cuda()

            optimizer.zero_grad()
            if not sc_flag:
                seq_probs, _ = model(fc_feats, labels, "train")
                loss = crit(seq_probs, labels[:, 1:], masks[:, 1:])
            else:
                seq_probs, seq_preds = model(fc_feats, mode="inference", opt=opt)
                reward = self_critical_reward(model, fc_feats, data, seq_preds)
                loss = rl_crit(seq_probs, seq_preds, Variable(torch.from_numpy(reward).float().cuda()))

            loss.backward()
            utils.clip_gradient(optimizer, opt["grad_clip"])
            optimizer.step()
            train_loss = loss.data[0]  # expect: TCK115
            iteration += 1

            if not sc_flag:
                print("iter %d (epoch %d), train_loss = %.6f" % (iteration, epoch, train_loss))
            else:
                print("iter %d (epoch %d), avg_reward = %.6f" % (iteration, epoch, np.mean(reward[:, 0])))
        lr_scheduler.step()

        if epoch != 0 and epoch % opt["save_checkpoint_every"] == 0:
            model_path = os.path.join(opt["checkpoint_path"], "model_%d.pth" % epoch)
            torch.save(model.state_dict(), model_path)
            with open(os.path.join(opt["checkpoint_path"], "model_score.txt"), "a") as f:
                f.write("model_%d, loss: %.6f\n" % (epoch, train_loss))


def main(opt, loader, vocab_size):
    model = S2VTModel(vocab_size, max_len=opt["max_len"]).cuda()
    crit = utils.LanguageModelCriterion()
    rl_crit = utils.RewardCriterion()
    optimizer = optim.Adam(model.parameters(), lr=opt["learning_rate"], weight_decay=opt["weight_decay"])
    exp_lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=opt["learning_rate_decay_every"],
                                                 gamma=opt["learning_rate_decay_rate"])
    train(loader, model, crit, optimizer, exp_lr_scheduler, opt, rl_crit)
