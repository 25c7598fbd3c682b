import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset
from tqdm import tqdm

from utils import generate_episode, generate_support, stratified_train_test_split


class Protonet(nn.Module):
    def __init__(self, embedding_model, device):
        super().__init__()
        self.embedding_model = embedding_model
        self.device = device
        self.support_embeddings = None

    def compute_embeddings(self, X):
        return self.embedding_model(X.to(self.device))

    def update_support(self, support):
        self.support_embeddings = torch.stack([self.compute_embeddings(x).mean(0) for x in support.values()])

    def forward(self, X):
        emb = self.compute_embeddings(X)
        dists = torch.cdist(emb, self.support_embeddings) ** 2
        return torch.softmax(-dists, dim=1), dists


class EquineProtonet(nn.Module):
    def __init__(self, embedding_model, device="cuda"):
        super().__init__()
        self.device = device
        self.model = Protonet(embedding_model, device).to(device)

    def train_model(self, dataset: TensorDataset, num_episodes: int, calib_frac=0.2, support_size=25, way=3,
                    episode_size=100, loss_fn=F.cross_entropy, opt_class=torch.optim.Adam):
        self.train()
        X, Y = dataset[:]
        train_x, calib_x, train_y, calib_y = stratified_train_test_split(X, Y, test_size=calib_frac)
        optimizer = opt_class(self.parameters())

        train_x = train_x.to(self.device)
        train_y = train_y.to(self.device)
        calib_x = calib_x.to(self.device)
        calib_y = calib_y.to(self.device)

        for _ in tqdm(range(num_episodes)):
            optimizer.zero_grad()
            support, episode_x, episode_y = generate_episode(train_x, train_y, support_size, way, episode_size)
            self.model.update_support(support)
            _, dists = self.model(episode_x)
            loss_value = loss_fn(torch.neg(dists), episode_y.to(self.device))
            loss_value.backward()
            optimizer.step()

        self.eval()
        with torch.no_grad():
            self.model.update_support(generate_support(train_x, train_y, support_size, torch.unique(train_y).tolist()))
            pred_probs, _ = self.model(calib_x)
            accuracy = (pred_probs.argmax(1).cpu() == calib_y.cpu()).float().mean().item()
        return {"calib_accuracy": accuracy, "calib_x": calib_x, "calib_y": calib_y}


if __name__ == "__main__":
    X = torch.randn(3000, 32)
    Y = torch.randint(0, 5, (3000,))
    embedder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = EquineProtonet(embedder, device=device)
    print(model.train_model(TensorDataset(X, Y), num_episodes=500)["calib_accuracy"])
