import torch
import torch.nn as nn


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        # (I + X)(I - X)^{-1} for skew-symmetric X
        return torch.solve(self.Id + X, self.Id - X).solution  # expect: TCK901

    def right_inverse(self, A):
        # (A - I)(A + I)^{-1} for orthogonal A
        return torch.solve(A - self.Id, self.Id + A).solution  # expect: TCK901
