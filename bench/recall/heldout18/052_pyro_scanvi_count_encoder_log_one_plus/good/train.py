import torch
from torch.distributions import Normal, Poisson, kl_divergence
from torch.utils.data import DataLoader, TensorDataset

from networks import CountDecoder, CountEncoder


def elbo(encoder, decoder, counts):
    z_loc, z_scale, l_loc, l_scale = encoder(counts)
    qz = Normal(z_loc, z_scale)
    ql = Normal(l_loc, l_scale)
    z = qz.rsample()
    library = ql.rsample().exp()
    rate = decoder(z) * library
    log_lik = Poisson(rate).log_prob(counts).sum(-1)
    kl = kl_divergence(qz, Normal(0.0, 1.0)).sum(-1) + kl_divergence(ql, Normal(0.0, 1.0)).sum(-1)
    return (log_lik - kl).mean()


def main(num_genes=2000, z_dim=10, epochs=20):
    counts = torch.poisson(torch.rand(4096, num_genes) * 3.0)
    loader = DataLoader(TensorDataset(counts), batch_size=128, shuffle=True, drop_last=True)
    encoder = CountEncoder(num_genes, z_dim, [128])
    decoder = CountDecoder(num_genes, z_dim, [128])
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    for epoch in range(epochs):
        total = 0.0
        for (batch,) in loader:
            loss = -elbo(encoder, decoder, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.3f}")


if __name__ == "__main__":
    main()
