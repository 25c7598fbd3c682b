import torch
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

from cgnet import CGnet, force_matching_loss

n_beads, n_frames = 10, 2000
coords = torch.randn(n_frames, n_beads, 3)
forces = torch.randn(n_frames, n_beads, 3)
embedding = torch.randint(1, 5, (n_frames, n_beads))
trainloader = DataLoader(TensorDataset(coords, forces, embedding), batch_size=128, shuffle=True)

model = CGnet(n_beads)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20, 30], gamma=0.5)
num_epochs = 40

for epoch in range(1, num_epochs + 1):
    train_loss = 0.0
    n = 0
    for num, batch in tqdm(enumerate(trainloader), total=len(trainloader)):
        optimizer.zero_grad()
        coord, force, embedding_property = batch
        coord.requires_grad_(True)
        _, pred_force = model(coord)
        batch_loss = force_matching_loss(pred_force, force)
        batch_loss.backward()
        optimizer.step()
        train_loss += batch_loss.item()
        n += 1
    scheduler.step()
    print(f"epoch {epoch}: train loss {train_loss / n:.4f}")
