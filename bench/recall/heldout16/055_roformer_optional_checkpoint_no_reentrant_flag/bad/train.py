import torch

from roformer import BandRoformer, separation_loss


def main(steps=1000, use_checkpoint=True):
    device = "cuda"
    model = BandRoformer(use_torch_checkpoint=use_checkpoint).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(steps):
        mixture = torch.randn(4, 44100 * 2, device=device)
        target = torch.rand(4, 173, 514, device=device)
        loss = separation_loss(model, mixture, target)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()


if __name__ == "__main__":
    main()
