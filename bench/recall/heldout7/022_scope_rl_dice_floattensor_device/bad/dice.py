import numpy as np
import torch
import torch.nn as nn


class ContinuousDiceWeightLearner:
    """Learns state-action importance weights for off-policy evaluation."""

    def __init__(self, w_function: nn.Module, v_function: nn.Module, gamma=0.99, device="cuda:0"):
        self.device = device
        self.w_function = w_function.to(device)
        self.v_function = v_function.to(device)
        self.gamma = gamma

    def fit(self, state, action, reward, next_state, n_steps=1000, lr=1e-4):
        state = torch.FloatTensor(state, device=self.device)  # expect: TCK703
        action = torch.FloatTensor(action, device=self.device)  # expect: TCK703
        reward = torch.FloatTensor(reward, device=self.device)  # expect: TCK703
        next_state = torch.FloatTensor(next_state, device=self.device)  # expect: TCK703
        optimizer = torch.optim.Adam(
            list(self.w_function.parameters()) + list(self.v_function.parameters()), lr=lr
        )
        for _ in range(n_steps):
            optimizer.zero_grad()
            w = self.w_function(state, action)
            v = self.v_function(state, action)
            v_next = self.v_function(next_state, action)
            loss = (w * (reward + self.gamma * v_next - v)).mean() ** 2
            loss.backward()
            optimizer.step()
        return self

    def predict_weights(self, state: np.ndarray, action: np.ndarray):
        with torch.no_grad():
            s = torch.tensor(state, dtype=torch.float32, device=self.device)
            a = torch.tensor(action, dtype=torch.float32, device=self.device)
            return self.w_function(s, a).cpu().numpy()
