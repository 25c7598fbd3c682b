import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import optim

from gen_wavernn import gen_testset
from models.fatchord_version import WaveRNN
from utils import hparams as hp


def voc_train_loop(out_dir: Path, model: WaveRNN, loss_func, optimizer, train_set, test_set, lr, total_steps):
    device = next(model.parameters()).device
    for g in optimizer.param_groups:
        g["lr"] = lr
    total_iters = len(train_set)
    epochs = (total_steps - model.get_step()) // total_iters + 1

    for e in range(1, epochs + 1):
        start = time.time()
        running_loss = 0.0
        for i, (x, y, m) in enumerate(train_set, 1):
            x, m, y = x.to(device), m.to(device), y.to(device)
            y_hat = model(x, m)
            y_hat = y_hat.transpose(1, 2).unsqueeze(-1)
            loss = loss_func(y_hat, y.unsqueeze(-1))

            optimizer.zero_grad()
            loss.backward()
            if hp.voc_clip_grad_norm is not None:
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), hp.voc_clip_grad_norm)
                if np.isnan(grad_norm.item()):
                    print("grad_norm was NaN!")
            optimizer.step()

            running_loss += loss.item()
            avg_loss = running_loss / i
            step = model.get_step()
            k = step // 1000
            if step % hp.voc_checkpoint_every == 0:
                gen_testset(model, test_set, hp.voc_gen_at_checkpoint, hp.voc_gen_batched,
                            hp.voc_target, hp.voc_overlap, out_dir)
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                           out_dir / f"wave_step{k}K.pt")
            print(f"| Epoch: {e}/{epochs} ({i}/{total_iters}) | Loss: {avg_loss:.4f} | "
                  f"{i / (time.time() - start):.1f} steps/s | Step: {k}k | ", end="\r")
        print(" ")


def main(train_set, test_set, out_dir=Path("checkpoints")):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = WaveRNN(rnn_dims=hp.voc_rnn_dims, fc_dims=hp.voc_fc_dims, bits=hp.bits,
                    upsample_factors=hp.voc_upsample_factors, feat_dims=hp.num_mels,
                    hop_length=hp.hop_length, sample_rate=hp.sample_rate, mode=hp.voc_mode).to(device)
    optimizer = optim.Adam(model.parameters())
    out_dir.mkdir(parents=True, exist_ok=True)
    voc_train_loop(out_dir, model, F.cross_entropy, optimizer, train_set, test_set, hp.voc_lr, hp.voc_total_steps)
