import numpy as np
import torch
import torch.nn.functional as F

from layers import AtomicConv


class AtomConvModel:
    def __init__(self, n_radial=8, learning_rate=1e-3, dropouts=0.5):
        self.model = AtomicConv(n_radial, dropouts=dropouts)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=learning_rate)

    def fit(self, dataset, nb_epoch=10):
        for epoch in range(nb_epoch):
            self.model.train()
            total = 0.0
            for coords, nbrs, y in dataset:
                self.optimizer.zero_grad()
                loss = F.mse_loss(self.model(coords, nbrs), y)
                loss.backward()
                self.optimizer.step()
                total += loss.item()
            print(f"epoch {epoch}: {total / len(dataset):.4f}")

    def predict(self, dataset):
        self.model.eval()
        with torch.no_grad():
            return np.array([self.model(coords, nbrs).item() for coords, nbrs, _ in dataset])


def random_complex(n_atoms=20, n_nbrs=6):
    coords = torch.randn(n_atoms, 3) * 3.0
    nbrs = torch.randint(0, n_atoms, (n_atoms, n_nbrs))
    return coords, nbrs, torch.randn(1)


if __name__ == "__main__":
    data = [random_complex() for _ in range(32)]
    model = AtomConvModel()
    model.fit(data, nb_epoch=3)
    first = model.predict(data)
    second = model.predict(data)
    print("identical predictions:", np.allclose(first, second))
