import itertools
import math

import torch
from torch.utils.data import DataLoader, TensorDataset

from models import Generator, MultiScaleDiscriminator, stft_loss

SEGMENT = 16384
DISC_START = 1000
LAMBDA_ADV = 2.5
FEAT_MATCH = 10.0


def train(loader, device, max_epochs=100):
    model_g = Generator().to(device)
    model_d = MultiScaleDiscriminator().to(device)
    optim_g = torch.optim.Adam(model_g.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optim_d = torch.optim.Adam(model_d.parameters(), lr=1e-4, betas=(0.5, 0.9))
    criterion = torch.nn.MSELoss()
    step = 0

    model_g.train()
    model_d.train()
    for epoch in range(max_epochs):
        avg_g_loss = []
        avg_d_loss = []
        avg_adv_loss = []
        for mel, audio in loader:
            mel, audio = mel.to(device), audio.to(device)

            # generator
            optim_g.zero_grad()
            fake_audio = model_g(mel)[:, :, :SEGMENT]
            sc_loss, mag_loss = stft_loss(fake_audio.squeeze(1), audio.squeeze(1))
            loss_g = sc_loss + mag_loss
            adv_loss = torch.tensor(0.0, device=device)
            if step > DISC_START:
                disc_fake = model_d(fake_audio)
                disc_real = model_d(audio)
                for _, score_fake in disc_fake:
                    adv_loss += criterion(score_fake, torch.ones_like(score_fake))
                adv_loss = adv_loss / len(disc_fake)
                for (feats_fake, _), (feats_real, _) in zip(disc_fake, disc_real):
                    for feat_f, feat_r in zip(feats_fake, feats_real):
                        adv_loss += FEAT_MATCH * torch.mean(torch.abs(feat_f - feat_r.detach()))
                loss_g += LAMBDA_ADV * adv_loss
            loss_g.backward()
            optim_g.step()

            # discriminator
            loss_d_value = 0.0
            if step > DISC_START:
                optim_d.zero_grad()
                disc_fake = model_d(fake_audio.detach())
                disc_real = model_d(audio)
                loss_d = 0.0
                for (_, score_fake), (_, score_real) in zip(disc_fake, disc_real):
                    loss_d += criterion(score_real, torch.ones_like(score_real))
                    loss_d += criterion(score_fake, torch.zeros_like(score_fake))
                loss_d = loss_d / len(disc_fake)
                loss_d.backward()
                optim_d.step()
                loss_d_value = loss_d.item()

            step += 1
            loss_g_value = loss_g.item()
            avg_g_loss.append(loss_g_value)
            avg_d_loss.append(loss_d_value)
            avg_adv_loss.append(adv_loss)  # expect: TCK101
            if math.isnan(loss_g_value):
                raise RuntimeError(f"loss exploded at step {step}")
            if step % 100 == 0:
                print(
                    "epoch %d step %d | g %.4f d %.4f adv %.4f"
                    % (
                        epoch,
                        step,
                        sum(avg_g_loss) / len(avg_g_loss),
                        sum(avg_d_loss) / len(avg_d_loss),
                        float(sum(avg_adv_loss) / len(avg_adv_loss)),
                    )
                )
    return model_g


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    mels = torch.randn(256, 80, 64)
    audio = torch.rand(256, 1, SEGMENT) * 2 - 1
    loader = DataLoader(TensorDataset(mels, audio), batch_size=16, shuffle=True, num_workers=4, drop_last=True)
    train(loader, device)


if __name__ == "__main__":
    main()
