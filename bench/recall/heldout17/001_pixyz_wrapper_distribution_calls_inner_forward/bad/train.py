import torch

from distributions import NormalDecoder, NormalEncoder, ReplaceVarDistribution


def log_activation_stats(module, inputs, output):
    # a forward hook registered for monitoring; only runs through Module.__call__
    module.last_loc_norm = output["loc"].detach().norm().item()


def main(epochs=5, in_dim=784, z_dim=32, device="cpu"):
    q = NormalEncoder(in_dim, z_dim).to(device)
    p = NormalDecoder(z_dim, in_dim).to(device)
    q_hat = ReplaceVarDistribution(q, {"x": "x_tilde"})
    q.register_forward_hook(log_activation_stats)

    optimizer = torch.optim.Adam(list(q.parameters()) + list(p.parameters()), lr=1e-3)
    data = torch.rand(512, in_dim)
    loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    for epoch in range(epochs):
        for x in loader:
            x = x.to(device)
            z = q_hat.sample(x=x)["z"]
            recon = p.log_prob(x, z=z)
            params = q_hat.get_params(x=x)
            kl = torch.distributions.kl_divergence(
                torch.distributions.Normal(params["loc"], params["scale"]),
                torch.distributions.Normal(torch.zeros_like(params["loc"]), torch.ones_like(params["scale"])),
            ).sum(-1)
            loss = (kl - recon).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, getattr(q, "last_loc_norm", None))


if __name__ == "__main__":
    main()
