import torch
import torch.optim as optim


class AnnealRunner:
    def __init__(self, config, score, dataloader, test_loader, loss_fn):
        self.config = config
        self.score = score
        self.dataloader = dataloader
        self.test_loader = test_loader
        self.loss_fn = loss_fn

    def train(self):
        score = self.score
        optimizer = optim.Adam(score.parameters(), lr=self.config.lr)
        test_iter = iter(self.test_loader)
        step = 0
        for epoch in range(self.config.n_epochs):
            for X, y in self.dataloader:
                step += 1
                score.train()
                loss = self.loss_fn(score, X)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

                if step % 100 == 0:
                    score.eval()
                    test_X, _ = next(test_iter)
                    with torch.no_grad():
                        test_loss = self.loss_fn(score, test_X)
                    print(step, loss.item(), test_loss.item())
