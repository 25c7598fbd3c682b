import torch

from policy import DiscretePolicy, Value


def a2c_step(policy_net, value_net, opt_policy, opt_value, states, actions, returns, advantages, l2_reg=1e-3):
    values_pred = value_net(states)
    value_loss = (values_pred - returns).pow(2).mean()
    for param in value_net.parameters():
        value_loss = value_loss + param.pow(2).sum() * l2_reg
    opt_value.zero_grad()
    value_loss.backward()
    opt_value.step()

    log_probs = policy_net.get_log_prob(states, actions)
    policy_loss = -(log_probs * advantages).mean()
    opt_policy.zero_grad()
    policy_loss.backward()
    torch.nn.utils.clip_grad_norm_(policy_net.parameters(), 40)
    opt_policy.step()


def rollout(policy_net, n=2048, state_dim=4):
    states = torch.randn(n, state_dim)
    with torch.no_grad():
        actions = policy_net.select_action(states).squeeze(1)
    rewards = (actions == 0).float()
    return states, actions, rewards


def main(iterations=100, gamma=0.99):
    policy_net, value_net = DiscretePolicy(4, 2), Value(4)
    opt_policy = torch.optim.Adam(policy_net.parameters(), lr=3e-4)
    opt_value = torch.optim.Adam(value_net.parameters(), lr=3e-4)
    for it in range(iterations):
        states, actions, rewards = rollout(policy_net)
        returns = torch.zeros_like(rewards)
        running = 0.0
        for t in reversed(range(len(rewards))):
            running = rewards[t] + gamma * running
            returns[t] = running
        returns = returns.unsqueeze(1)
        with torch.no_grad():
            advantages = returns - value_net(states)
        a2c_step(policy_net, value_net, opt_policy, opt_value, states, actions, returns, advantages)
        kl = policy_net.get_kl(states).mean().item()
        print(it, rewards.mean().item(), kl)


if __name__ == "__main__":
    main()
