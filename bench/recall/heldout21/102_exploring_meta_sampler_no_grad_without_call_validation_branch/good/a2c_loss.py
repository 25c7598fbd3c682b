import torch


def policy_loss(log_probs, advantages):
    return -(log_probs * advantages).mean()


def state_value_loss(values, returns):
    return 0.5 * (returns - values).pow(2).mean()


def compute_a2c_loss(policy, samples, device="cpu"):
    """Actor and critic losses of one rollout, re-evaluated by the current policy so they carry its graph."""
    states = torch.from_numpy(samples["states"]).to(device)
    actions = torch.from_numpy(samples["actions"]).to(device)
    advantages = torch.from_numpy(samples["advantages"]).to(device)
    returns = torch.from_numpy(samples["returns"]).to(device)
    log_prob, values = policy.evaluate(states, actions)
    return policy_loss(log_prob, advantages), state_value_loss(values, returns)
