"""Train the matcher on synthetic descriptor pairs with known assignments."""
import torch

from gluefactory.models.matchers.lightglue import LightGlue

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = LightGlue(input_dim=128, descriptor_dim=128, n_layers=5).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

model.train()
for step in range(50):
    b, m, n = 4, 64, 64
    data = {
        "descriptors0": torch.randn(b, m, 128, device=device),
        "descriptors1": torch.randn(b, n, 128, device=device),
        "gt_assignment": torch.eye(m + 1, n + 1, device=device).expand(b, -1, -1),
    }
    pred = model(data)
    losses = model.loss(pred, data)
    loss = losses["total"].mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
