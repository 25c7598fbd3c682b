import json
import linecache

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

from rnn_model import TinyRecurrentLM


class JsonlTextDataset(Dataset):
    def __init__(self, path):
        self.path = path
        with open(path, "r") as fh:
            self.n_lines = sum(1 for _ in fh)

    def __len__(self):
        return self.n_lines

    def __getitem__(self, idx):
        record = json.loads(linecache.getline(self.path, idx + 1))
        ids = [ord(c) % 256 for c in record["text"]] + [0]
        ids = torch.tensor(ids, dtype=torch.long)
        return ids[:-1].unsqueeze(0), ids[1:].unsqueeze(0)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = TinyRecurrentLM().to(device)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.CrossEntropyLoss()
slice_len = 128
loader = DataLoader(JsonlTextDataset("data/seq.jsonl"), batch_size=1, shuffle=True)
accumulation_steps = 10
epochs = 1

for epoch in range(epochs):
    optimizer.zero_grad()
    with tqdm(loader) as bar:
        for step, (x, y) in enumerate(bar, start=1):
            x, y = x[0].to(device), y[0].to(device)
            seq_len = x.shape[1]
            state = torch.zeros(model.state_size, device=device).unsqueeze(0)
            optimizer.zero_grad()  # expect: TCK111
            for i in range((seq_len - 2) // slice_len + 1):
                lo, hi = i * slice_len, min((i + 1) * slice_len, seq_len - 1)
                logits, state_new = model.forward_parallel(x[:, lo:hi], state)
                state = state_new.detach()
                loss = criterion(logits[0], y[0, lo:hi])
                (loss * ((hi - lo) / seq_len)).backward()

            if step % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()

            bar.set_postfix(loss=loss.item())

model.save_model("rwkv-test-epoch-1.pth")
