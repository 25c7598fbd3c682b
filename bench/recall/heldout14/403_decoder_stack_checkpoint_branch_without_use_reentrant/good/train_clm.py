import torch
import torch.nn.functional as F

from modeling_tiny_llama import TinyLlamaModel


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TinyLlamaModel().to(device)
    model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model.train()
    for step in range(20):
        input_ids = torch.randint(0, 1000, (8, 64), device=device)
        logits = model(input_ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), input_ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 5 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
