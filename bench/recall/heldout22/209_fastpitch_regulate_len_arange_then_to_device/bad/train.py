import torch
import torch.nn.functional as F

from model import FastPitch


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = FastPitch().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-6)
    for step in range(1000):
        inputs = torch.randint(1, 148, (16, 60), device=device)
        input_lens = torch.full((16,), 60, device=device)
        dur_tgt = torch.randint(1, 8, (16, 60), device=device)
        pitch_tgt = torch.randn(16, 1, 60, device=device)
        mel_max_len = int(dur_tgt.sum(1).max())
        mel_tgt = torch.randn(16, mel_max_len, 80, device=device)

        mel_out, dec_lens, log_dur_pred, pitch_pred = model(inputs, input_lens, dur_tgt, pitch_tgt, mel_max_len)
        loss = (F.mse_loss(mel_out, mel_tgt[:, : mel_out.size(1)])
                + F.mse_loss(log_dur_pred, torch.log(dur_tgt.float() + 1))
                + F.mse_loss(pitch_pred, pitch_tgt))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
