import torch

from efficientunet import get_efficientunet_b0

model = get_efficientunet_b0(out_channels=1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(2, 3, 224, 224)
loss = model(x).mean()
loss.backward()
optimizer.step()
torch.save(model.state_dict(), "model.pt")
