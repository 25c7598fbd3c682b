"""GPT-2 small pretraining on one GPU with the speed-ups of the chapter (compile, fused AdamW, TF32)."""
import os
import time
import urllib.request

import tiktoken
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class GPTDatasetV1(Dataset):
    def __init__(self, txt, tokenizer, max_length, stride):
        ids = tokenizer.encode(txt, allowed_special={"<|endoftext|>"})
        self.inputs, self.targets = [], []
        for i in range(0, len(ids) - max_length, stride):
            self.inputs.append(torch.tensor(ids[i:i + max_length]))
            self.targets.append(torch.tensor(ids[i + 1:i + max_length + 1]))

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, idx):
        return self.inputs[idx], self.targets[idx]


def create_dataloader(txt, batch_size, max_length, stride, shuffle, drop_last):
    tokenizer = tiktoken.get_encoding("gpt2")
    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, num_workers=4)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm1 = nn.LayerNorm(cfg["emb_dim"])
        self.att = nn.MultiheadAttention(cfg["emb_dim"], cfg["n_heads"], dropout=cfg["drop_rate"],
                                         bias=cfg["qkv_bias"], batch_first=True)
        self.norm2 = nn.LayerNorm(cfg["emb_dim"])
        self.ff = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), nn.GELU(approximate="tanh"),
                                nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))
        self.drop = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        n = x.shape[1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device=x.device), diagonal=1)
        h = self.norm1(x)
        x = x + self.drop(self.att(h, h, h, attn_mask=mask, need_weights=False)[0])
        return x + self.drop(self.ff(self.norm2(x)))


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(in_idx.shape[1], device=in_idx.device))
        x = self.trf_blocks(self.drop_emb(x))
        return self.out_head(self.final_norm(x))


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())


def evaluate_model(model, loader, device, num_batches):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for i, (x, y) in enumerate(loader):
            if i >= num_batches:
                break
            total += calc_loss_batch(x, y, model, device).item()
    model.train()
    return total / max(1, min(num_batches, len(loader)))


def train_model_simple_with_timing(model, train_loader, val_loader, optimizer, device, num_epochs, eval_freq):
    train_losses, val_losses = [], []
    global_step = -1
    t0 = time.time()
    for epoch in range(num_epochs):
        model.train()
        for inp_batch, tgt_batch in train_loader:
            optimizer.zero_grad()
            global_step += 1
            loss = calc_loss_batch(inp_batch, tgt_batch, model, device)
            loss.backward()
            optimizer.step()
            if global_step % eval_freq == 0:
                train_losses.append(evaluate_model(model, train_loader, device, 1))
                val_losses.append(evaluate_model(model, val_loader, device, 1))
                print(f"Ep {epoch + 1}, step {global_step:06d}, train {train_losses[-1]:.3f}, "
                      f"val {val_losses[-1]:.3f}, {time.time() - t0:.1f}s")
    return train_losses, val_losses


def main(gpt_config, settings):
    torch.manual_seed(123)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 7:
        torch.set_float32_matmul_precision("high")

    file_path = "middlemarch.txt"
    if not os.path.exists(file_path):
        with urllib.request.urlopen("https://www.gutenberg.org/cache/epub/145/pg145.txt") as response:
            text_data = response.read().decode("utf-8")
        with open(file_path, "w", encoding="utf-8") as f:
            f.write(text_data)
    else:
        with open(file_path, "r", encoding="utf-8") as f:
            text_data = f.read()

    model = GPTModel(gpt_config)
    model = torch.compile(model)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings["learning_rate"],
                                  weight_decay=settings["weight_decay"], fused=True)

    split_idx = int(0.9 * len(text_data))
    ctx = gpt_config["context_length"]
    train_loader = create_dataloader(text_data[:split_idx], settings["batch_size"], ctx, ctx, True, True)
    val_loader = create_dataloader(text_data[split_idx:], settings["batch_size"], ctx, ctx, False, False)

    train_losses, val_losses = train_model_simple_with_timing(
        model, train_loader, val_loader, optimizer, device, settings["num_epochs"], eval_freq=10)
    return train_losses, val_losses, model


if __name__ == "__main__":
    GPT_CONFIG_124M = {
        "vocab_size": 50304,
        "context_length": 1024,
        "emb_dim": 768,
        "n_heads": 12,
        "n_layers": 12,
        "drop_rate": 0.1,
        "qkv_bias": False,
    }
    OTHER_SETTINGS = {"learning_rate": 5e-4, "num_epochs": 15, "batch_size": 32, "weight_decay": 0.1}

    train_losses, val_losses, model = main(GPT_CONFIG_124M, OTHER_SETTINGS)

    # Save and load model
    torch.save(model._orig_mod.state_dict(), "model.pth")
    model = GPTModel(GPT_CONFIG_124M)
    model.load_state_dict(torch.load("model.pth", weights_only=True))
