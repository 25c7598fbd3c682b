import torch

from vae import Decoder, Encoder


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = Encoder().to(device)
    decoder = Decoder().to(device)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    for step in range(100):
        video = torch.randn(1, 64, 9, 64, 64, device=device)
        moments = encoder(video)
        mean, logvar = moments.chunk(2, dim=1)
        z = mean + torch.randn_like(mean) * torch.exp(0.5 * logvar)
        recon = decoder(z)
        target = torch.nn.functional.interpolate(video, size=recon.shape[2:])
        loss = torch.nn.functional.mse_loss(recon, target) + 1e-6 * (mean.pow(2) + logvar.exp() - logvar).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict()}, "vae.pt")


if __name__ == "__main__":
    main()
