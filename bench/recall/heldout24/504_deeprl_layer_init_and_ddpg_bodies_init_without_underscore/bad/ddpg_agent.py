import numpy as np
import torch.nn as nn

from network import DeterministicActorNet, DeterministicCriticNet, DisjointActorCriticWrapper


class DDPGAgent:
    def __init__(self, config):
        self.config = config
        self.task = config.task_fn()
        make = lambda: DisjointActorCriticWrapper(
            self.task.state_dim, self.task.action_dim,
            lambda s, a: DeterministicActorNet(s, a, gpu=config.gpu),
            lambda s, a: DeterministicCriticNet(s, a, gpu=config.gpu),
        )
        self.network = make()
        self.target_network = make()
        self.target_network.load_state_dict(self.network.state_dict())
        self.actor_opt = config.actor_optimizer_fn(self.network.actor.parameters())
        self.critic_opt = config.critic_optimizer_fn(self.network.critic.parameters())
        self.replay = config.replay_fn()
        self.random_process = config.random_process_fn(self.task.action_dim)
        self.criterion = nn.MSELoss()

    def soft_update(self, target, src):
        mix = self.config.target_network_mix
        for target_param, param in zip(target.parameters(), src.parameters()):
            target_param.data.copy_(target_param.data * (1.0 - mix) + param.data * mix)

    def learn(self):
        actor, critic = self.network.actor, self.network.critic
        states, actions, rewards, next_states, terminals = self.replay.sample()
        q_next = self.target_network.critic.predict(next_states, self.target_network.actor.predict(next_states))
        terminals = critic.variable(terminals).unsqueeze(1)
        rewards = critic.variable(rewards).unsqueeze(1)
        q_next = rewards + self.config.discount * q_next * (1 - terminals)
        q = critic.predict(states, actions)
        critic_loss = self.criterion(q, q_next.detach())
        critic.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        policy_loss = -critic.predict(states, actor.predict(states)).mean()
        actor.zero_grad()
        policy_loss.backward()
        self.actor_opt.step()

        self.soft_update(self.target_network.actor, actor)
        self.soft_update(self.target_network.critic, critic)

    def episode(self):
        self.random_process.reset_states()
        state = self.task.reset()
        total_reward, done = 0.0, False
        while not done:
            action = self.network.actor.predict(np.stack([state]), True).flatten()
            action += self.random_process.sample()
            next_state, reward, done, _ = self.task.step(action)
            self.replay.feed([state, action, reward, next_state, int(done)])
            total_reward += reward
            state = next_state
            if self.replay.size() >= self.config.min_memory_size:
                self.learn()
        return total_reward
