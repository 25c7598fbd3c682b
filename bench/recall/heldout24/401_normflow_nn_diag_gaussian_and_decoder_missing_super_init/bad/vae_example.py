import torch
from torch import nn
from torchvision import datasets, transforms

import normflow as nf

latent = 8
encoder = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 2 * latent))
decoder = nn.Sequential(nn.Linear(latent, 256), nn.ReLU(), nn.Linear(256, 2 * 784))

q0 = nf.distributions.NNDiagGaussian(encoder)
likelihood = nf.distributions.NNDiagGaussianDecoder(decoder)
prior = nf.distributions.StandardNormal(latent)
model = nf.NormalizingFlow(prior, decoder=likelihood, q0=q0)

loader = torch.utils.data.DataLoader(
    datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor()),
    batch_size=128, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    for x, _ in loader:
        x = x.view(x.shape[0], -1)
        z, log_q, log_p = model(x, num_samples=1)
        loss = torch.mean(log_q - log_p)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
