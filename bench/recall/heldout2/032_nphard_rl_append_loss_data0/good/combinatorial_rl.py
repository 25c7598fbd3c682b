import torch
import torch.nn as nn
import torch.optim as optim


def train_epoch(model, train_loader, adam, max_grad_norm=2.0, beta=0.9):
    train_loss = []
    critic_exp_mvg_avg = torch.zeros(1)
    for batch_id, sample_batch in enumerate(train_loader):
        R, probs, actions, actions_idxs = model(sample_batch)
        if batch_id == 0:
            critic_exp_mvg_avg = R.mean()
        else:
            critic_exp_mvg_avg = (critic_exp_mvg_avg * beta) + ((1.0 - beta) * R.mean())
        advantage = R - critic_exp_mvg_avg
        logprobs = sum(torch.log(prob) for prob in probs)
        reinforce = advantage * logprobs
        actor_loss = reinforce.mean()
        adam.zero_grad()
        actor_loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), float(max_grad_norm))
        adam.step()
        critic_exp_mvg_avg = critic_exp_mvg_avg.detach()
        loss = actor_loss
        train_loss.append(loss.item())
    return train_loss
