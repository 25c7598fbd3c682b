import torch


def ppo_update(policy, optimizer, replay, ppo_epochs=3, clip=0.2, vf_coef=0.5):
    states, actions, old_log_probs, returns, advantages = replay
    for _ in range(ppo_epochs):
        new_log_probs, values = policy.evaluate(states, actions)
        ratio = torch.exp(new_log_probs - old_log_probs)
        surr1 = ratio * advantages
        surr2 = torch.clamp(ratio, 1.0 - clip, 1.0 + clip) * advantages
        policy_loss = -torch.min(surr1, surr2).mean()
        value_loss = (returns - values).pow(2).mean()
        loss = policy_loss + vf_coef * value_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()
