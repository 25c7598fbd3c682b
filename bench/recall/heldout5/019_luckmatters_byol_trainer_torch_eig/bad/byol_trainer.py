import torch
import torch.nn.functional as F


class BYOLTrainer:
    def __init__(self, online_network, target_network, predictor, optimizer, log_every=100):
        self.online_network = online_network
        self.target_network = target_network
        self.predictor = predictor
        self.optimizer = optimizer
        self.log_every = log_every

    def predictor_spectrum(self):
        w = self.predictor.layer.weight.detach()
        eigen_values, _ = torch.eig(w @ w.t(), eigenvectors=False)  # expect: TCK901
        return eigen_values[:, 0].sort(descending=True).values

    def train(self, train_loader, epochs):
        step = 0
        for epoch in range(epochs):
            for view_1, view_2 in train_loader:
                pred = self.predictor(self.online_network(view_1.cuda()))
                with torch.no_grad():
                    target = self.target_network(view_2.cuda())
                loss = 2 - 2 * F.cosine_similarity(pred, target.detach(), dim=-1).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                if step % self.log_every == 0:
                    print(step, loss.item(), self.predictor_spectrum()[:5].tolist())
                step += 1
