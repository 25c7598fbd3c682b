import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from checkpoint import Checkpoint


class VQAModel(nn.Module):
    def __init__(self, image_dim=2048, vocab_size=1000, text_dim=300, hidden=512, num_answers=100):
        super().__init__()
        self.word_embedding = nn.Embedding(vocab_size, text_dim)
        self.text_encoder = nn.LSTM(text_dim, hidden, batch_first=True)
        self.image_proj = nn.Linear(image_dim, hidden)
        self.classifier = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, num_answers))

    def forward(self, image_features, question):
        _, (h, _) = self.text_encoder(self.word_embedding(question))
        joint = h[-1] * self.image_proj(image_features)
        return self.classifier(joint)


class Trainer:
    def __init__(self, max_iterations=200, snapshot_interval=50):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = VQAModel().to(self.device)
        self.optimizer = torch.optim.Adamax(self.model.parameters(), lr=1e-3)
        self.max_iterations = max_iterations
        self.snapshot_interval = snapshot_interval
        self.checkpoint = Checkpoint(self)
        data = TensorDataset(torch.randn(640, 2048), torch.randint(0, 1000, (640, 14)), torch.randint(0, 100, (640,)))
        self.loader = DataLoader(data, batch_size=32, shuffle=True)

    def train(self):
        self.model.train()
        iteration = 0
        while iteration < self.max_iterations:
            for image, question, answer in self.loader:
                image, question, answer = image.to(self.device), question.to(self.device), answer.to(self.device)
                self.optimizer.zero_grad()
                loss = F.cross_entropy(self.model(image, question), answer)
                loss.backward()
                self.optimizer.step()
                iteration += 1
                if iteration % self.snapshot_interval == 0:
                    self.checkpoint.save(iteration, update_best=True)
                if iteration >= self.max_iterations:
                    break
        self.checkpoint.restore()
        self.checkpoint.finalize()


if __name__ == "__main__":
    Trainer().train()
