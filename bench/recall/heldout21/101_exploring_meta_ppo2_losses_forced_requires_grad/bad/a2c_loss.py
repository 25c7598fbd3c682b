import torch


def policy_loss(log_probs, advantages):
    return -(log_probs * advantages).mean()


def state_value_loss(values, returns):
    return 0.5 * (returns - values).pow(2).mean()


def compute_a2c_loss(samples, device="cpu"):
    """Actor and critic losses of one rollout, read back from the sampler's NumPy storage."""
    log_prob = torch.from_numpy(samples["log_prob"]).to(device)
    advantages = torch.from_numpy(samples["advantages"]).to(device)
    values = torch.from_numpy(samples["values"]).to(device)
    returns = torch.from_numpy(samples["returns"]).to(device)
    return policy_loss(log_prob, advantages), state_value_loss(values, returns)
