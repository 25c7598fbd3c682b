import argparse

import torch
from torch import nn

from model_builder import build_base_model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rnn_size", type=int, default=256)
    parser.add_argument("--copy_attn", action="store_true")
    parser.add_argument("--share_decoder_embeddings", action="store_true")
    opt = parser.parse_args()

    model = build_base_model(opt, src_vocab=8000, tgt_vocab=8000)
    criterion = nn.NLLLoss(ignore_index=1, reduction="sum")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for step in range(100):
        src = torch.randint(2, 8000, (16, 30))
        tgt = torch.randint(2, 8000, (16, 25))
        lengths = torch.full((16,), 30)
        dec_out, _ = model(src, tgt[:, :-1], lengths)
        log_probs = model.generator(dec_out.reshape(-1, dec_out.size(-1)))
        loss = criterion(log_probs, tgt[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.div(16).backward()
        optimizer.step()


if __name__ == "__main__":
    main()
