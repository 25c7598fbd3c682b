import torch

from pyhessian.utils import get_params_grad, group_product, hessian_vector_product, normalization, orthnormal


class hessian:
    """Top eigenvalues, trace and eigenvalue density of a network's loss Hessian."""

    def __init__(self, model, criterion, data, device="cpu"):
        self.model = model.eval()
        self.criterion = criterion
        self.device = device
        inputs, targets = data
        self.inputs, self.targets = inputs.to(device), targets.to(device)
        loss = self.criterion(self.model(self.inputs), self.targets)
        loss.backward(create_graph=True)
        self.params, self.gradsH = get_params_grad(self.model)

    def density(self, iter=100, n_v=1):
        eigen_list_full, weight_list_full = [], []
        for _ in range(n_v):
            v = normalization([torch.randint_like(p, high=2, device=self.device) * 2 - 1 for p in self.params])
            v_list, w_list, alpha_list, beta_list = [v], [], [], []
            for i in range(iter):
                self.model.zero_grad()
                if i == 0:
                    w_prime = hessian_vector_product(self.gradsH, self.params, v)
                    alpha = group_product(w_prime, v)
                    alpha_list.append(alpha.item())
                    w = [wp - alpha * vi for wp, vi in zip(w_prime, v)]
                    w_list.append(w)
                else:
                    beta = torch.sqrt(group_product(w, w))
                    beta_list.append(beta.item())
                    if beta_list[-1] != 0.0:
                        v = orthnormal(w, v_list)
                    else:
                        v = orthnormal([torch.randn_like(p) for p in self.params], v_list)
                    v_list.append(v)
                    w_prime = hessian_vector_product(self.gradsH, self.params, v)
                    alpha = group_product(w_prime, v)
                    alpha_list.append(alpha.item())
                    w = [wp - alpha * vi - beta * vp for wp, vi, vp in zip(w_prime, v, v_list[-2])]

            T = torch.zeros(iter, iter, device=self.device)
            for i in range(len(alpha_list)):
                T[i, i] = alpha_list[i]
                if i < len(alpha_list) - 1:
                    T[i + 1, i] = beta_list[i]
                    T[i, i + 1] = beta_list[i]
            a_, b_ = torch.eig(T, eigenvectors=True)  # expect: TCK901

            eigen_list = a_[:, 0]
            weight_list = b_[0, :] ** 2
            eigen_list_full.append(list(eigen_list.cpu().numpy()))
            weight_list_full.append(list(weight_list.cpu().numpy()))
        return eigen_list_full, weight_list_full
