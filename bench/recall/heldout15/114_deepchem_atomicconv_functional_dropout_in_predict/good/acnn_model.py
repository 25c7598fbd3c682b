import torch

from layers import AtomicConv


class AtomicConvModel:
    """Keras-style wrapper: fit() trains, predict() runs the network in eval mode."""

    def __init__(self, radial_params, atom_types, learning_rate=1e-3, device="cpu"):
        self.device = torch.device(device)
        self.model = AtomicConv(radial_params, atom_types).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=learning_rate)

    def fit(self, batches, epochs=10):
        self.model.train()
        for _ in range(epochs):
            for inputs, y in batches:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(*inputs), y)
                loss.backward()
                self.optimizer.step()

    @torch.no_grad()
    def predict(self, batches):
        self.model.eval()
        return torch.cat([self.model(*inputs) for inputs, _ in batches])


if __name__ == "__main__":
    radial = [[12.0, r, 4.0] for r in (0.0, 1.5, 3.0, 4.5, 6.0)]
    types = [6, 7, 8, 16]

    def fake_inputs(n=4, atoms=20, neighbors=12):
        return (torch.rand(n, atoms, neighbors) * 12.0, torch.randint(5, 17, (n, atoms, neighbors)))

    batches = [((fake_inputs(), fake_inputs(), fake_inputs()), torch.randn(4)) for _ in range(8)]
    model = AtomicConvModel(radial, types)
    model.fit(batches, epochs=2)
    first, second = model.predict(batches), model.predict(batches)
    print("deterministic predictions:", torch.allclose(first, second))
