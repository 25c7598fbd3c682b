import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm, trange


class DoubleHeadsGPT(nn.Module):
    def __init__(self, vocab_size=4000, n_embd=256, n_layer=4, n_head=8, n_positions=128):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.pos = nn.Embedding(n_positions, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.mc_head = nn.Linear(n_embd, 1)

    def forward(self, input_ids, mc_token_ids, lm_labels, mc_labels):
        bsz, n_choices, seq = input_ids.shape
        ids = input_ids.view(-1, seq)
        positions = torch.arange(seq, device=ids.device)
        causal = torch.triu(torch.full((seq, seq), float("-inf"), device=ids.device), diagonal=1)
        h = self.blocks(self.tok(ids) + self.pos(positions), mask=causal)
        lm_logits = self.lm_head(h)
        lm_loss = nn.functional.cross_entropy(
            lm_logits[:, :-1].reshape(-1, lm_logits.size(-1)), lm_labels.view(-1, seq)[:, 1:].reshape(-1), ignore_index=-1
        )
        cls = h[torch.arange(h.size(0), device=ids.device), mc_token_ids.view(-1)]
        mc_logits = self.mc_head(cls).view(bsz, n_choices)
        mc_loss = nn.functional.cross_entropy(mc_logits, mc_labels)
        return lm_loss, mc_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--train_batch_size", type=int, default=8)
    parser.add_argument("--learning_rate", type=float, default=6.25e-5)
    parser.add_argument("--lm_coef", type=float, default=0.9)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n = 1024
    input_ids = torch.randint(0, 4000, (n, 2, 64))
    mc_token_ids = torch.full((n, 2), 63)
    lm_labels = input_ids.clone()
    mc_labels = torch.randint(0, 2, (n,))
    train_dataloader = DataLoader(TensorDataset(input_ids, mc_token_ids, lm_labels, mc_labels), batch_size=args.train_batch_size, shuffle=True)

    model = DoubleHeadsGPT().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)

    model.train()
    for _ in trange(args.num_train_epochs, desc="Epoch"):
        tr_loss = 0.0
        nb_tr_steps = 0
        tqdm_bar = tqdm(train_dataloader, desc="Training")
        for step, batch in enumerate(tqdm_bar):
            batch = tuple(t.to(device) for t in batch)
            input_ids, mc_token_ids, lm_labels, mc_labels = batch
            lm_loss, mc_loss = model(input_ids, mc_token_ids, lm_labels, mc_labels)
            loss = args.lm_coef * lm_loss + mc_loss
            loss.backward()
            optimizer.step()  # expect: TCK102
            tr_loss += loss.item()
            nb_tr_steps += 1
            tqdm_bar.desc = f"Training loss: {tr_loss / nb_tr_steps:.2e}"


if __name__ == "__main__":
    main()
