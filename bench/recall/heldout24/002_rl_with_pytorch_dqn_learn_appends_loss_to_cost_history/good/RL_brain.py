import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

np.random.seed(1)
torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super().__init__()
        self.hidden = nn.Linear(n_feature, n_hidden)
        self.q = nn.Linear(n_hidden, n_output)

    def forward(self, x):
        return self.q(F.relu(self.hidden(x)))


class DeepQNetwork:
    def __init__(self, n_actions, n_features, n_hidden=20, learning_rate=0.01, reward_decay=0.9,
                 e_greedy=0.9, replace_target_iter=200, memory_size=500, batch_size=32,
                 e_greedy_increment=None):
        self.n_actions = n_actions
        self.n_features = n_features
        self.n_hidden = n_hidden
        self.lr = learning_rate
        self.gamma = reward_decay
        self.epsilon_max = e_greedy
        self.replace_target_iter = replace_target_iter
        self.memory_size = memory_size
        self.batch_size = batch_size
        self.epsilon_increment = e_greedy_increment
        self.epsilon = 0 if e_greedy_increment is not None else self.epsilon_max

        self.learn_step_counter = 0
        self.memory_counter = 0
        # each row holds [s, a, r, s_]
        self.memory = np.zeros((self.memory_size, n_features * 2 + 2))

        self.loss_func = nn.MSELoss()
        self.cost_his = []
        self._build_net()

    def _build_net(self):
        self.q_eval = Net(self.n_features, self.n_hidden, self.n_actions)
        self.q_target = Net(self.n_features, self.n_hidden, self.n_actions)
        self.optimizer = torch.optim.RMSprop(self.q_eval.parameters(), lr=self.lr)

    def store_transition(self, s, a, r, s_):
        row = np.hstack((s, [a, r], s_))
        self.memory[self.memory_counter % self.memory_size, :] = row
        self.memory_counter += 1

    def choose_action(self, observation):
        observation = torch.Tensor(observation[np.newaxis, :])
        if np.random.uniform() < self.epsilon:
            with torch.no_grad():
                actions_value = self.q_eval(observation)
            return int(np.argmax(actions_value.numpy()))
        return np.random.randint(0, self.n_actions)

    def learn(self):
        if self.learn_step_counter % self.replace_target_iter == 0:
            self.q_target.load_state_dict(self.q_eval.state_dict())
            print("\ntarget params replaced\n")

        upper = min(self.memory_counter, self.memory_size)
        batch = self.memory[np.random.choice(upper, size=self.batch_size), :]

        states = torch.Tensor(batch[:, :self.n_features])
        next_states = torch.Tensor(batch[:, -self.n_features:])
        q_eval = self.q_eval(states)
        with torch.no_grad():
            q_next = self.q_target(next_states)

        # only the taken action's value is moved towards the TD target; the others match q_eval
        q_target = q_eval.detach().clone()
        rows = np.arange(self.batch_size, dtype=np.int64)
        taken = batch[:, self.n_features].astype(int)
        reward = torch.Tensor(batch[:, self.n_features + 1])
        q_target[rows, taken] = reward + self.gamma * q_next.max(dim=1)[0]

        loss = self.loss_func(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        self.cost_his.append(loss.item())
        if self.epsilon < self.epsilon_max:
            self.epsilon = self.epsilon + self.epsilon_increment
        else:
            self.epsilon = self.epsilon_max
        self.learn_step_counter += 1

    def plot_cost(self):
        plt.plot(np.arange(len(self.cost_his)), self.cost_his)
        plt.ylabel("Cost")
        plt.xlabel("training steps")
        plt.show()
