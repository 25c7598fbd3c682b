import numpy as np
import torch
from scipy.linalg import lstsq
from scipy.optimize import nnls


class GradMatch:
    def __init__(self, gradients, val_gradients, fraction=0.1, device="cuda", print_freq=50):
        self.gradients = gradients
        self.val_gradients = val_gradients
        self.fraction = fraction
        self.device = device
        self.print_freq = print_freq

    def orthogonal_matching_pursuit(self, A, b, budget, lam=1.0):
        """Approximately solve min |x|_0 s.t. Ax = b on the GPU."""
        with torch.no_grad():
            d, n = A.shape
            budget = max(0, min(budget, n))
            x = np.zeros(n, dtype=np.float32)
            resid = b.clone()
            indices = []
            mask = torch.ones(n, dtype=torch.bool, device=A.device)
            all_idx = torch.arange(n, device=A.device)
            for i in range(budget):
                if i % self.print_freq == 0:
                    print(f"| Selecting [{i + 1}/{budget}]")
                projections = torch.matmul(A.T, resid)
                index = all_idx[mask][torch.argmax(projections[mask])]
                indices.append(index.item())
                mask[index] = False
                if len(indices) == 1:
                    A_i = A[:, index]
                    x_i = projections[index] / torch.dot(A_i, A_i).view(-1)
                    A_i = A[:, index].view(1, -1)
                else:
                    A_i = torch.cat((A_i, A[:, index].view(1, -1)), dim=0)
                    temp = torch.matmul(A_i, A_i.T) + lam * torch.eye(A_i.shape[0], device=A.device)
                    x_i = torch.linalg.lstsq(temp, torch.matmul(A_i, b).view(-1, 1)).solution
                resid = b - torch.matmul(A_i.T, x_i).view(-1)
            if budget > 1:
                x[indices] = nnls(temp.cpu().numpy(), torch.matmul(A_i, b).view(-1).cpu().numpy())[0]
            elif budget == 1:
                x[indices[0]] = 1.0
        return x

    def orthogonal_matching_pursuit_np(self, A, b, budget, lam=1.0):
        d, n = A.shape
        budget = max(0, min(budget, n))
        x = np.zeros(n, dtype=np.float32)
        resid = np.copy(b)
        indices = []
        for _ in range(budget):
            projections = A.T.dot(resid)
            projections[indices] = -np.inf
            indices.append(int(np.argmax(projections)))
            A_i = A[:, indices].T
            x_i = lstsq(A_i.dot(A_i.T) + lam * np.identity(len(indices)), A_i.dot(b))[0]
            resid = b - A_i.T.dot(x_i)
        if budget > 0:
            x[indices] = nnls(A_i.dot(A_i.T) + lam * np.identity(len(indices)), A_i.dot(b))[0]
        return x

    def select(self):
        budget = round(self.gradients.shape[0] * self.fraction)
        if self.device == "cpu":
            weights = self.orthogonal_matching_pursuit_np(self.gradients.numpy().T, self.val_gradients.numpy(), budget)
        else:
            weights = self.orthogonal_matching_pursuit(
                self.gradients.to(self.device).T, self.val_gradients.to(self.device), budget
            )
        selection = np.nonzero(weights)[0]
        return {"indices": selection, "weights": weights[selection]}


if __name__ == "__main__":
    grads = torch.randn(500, 64)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result = GradMatch(grads, grads.mean(dim=0), fraction=0.05, device=device).select()
    print(len(result["indices"]))
