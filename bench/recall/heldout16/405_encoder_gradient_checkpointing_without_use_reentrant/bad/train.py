import torch
from torch import nn

from modeling import EncoderForSequenceClassification


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = EncoderForSequenceClassification(num_labels=3).to(device)
    model.encoder.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
    criterion = nn.CrossEntropyLoss()

    model.train()
    for step in range(100):
        input_ids = torch.randint(0, 30522, (8, 256), device=device)
        attention_mask = torch.ones_like(input_ids)
        labels = torch.randint(0, 3, (8,), device=device)
        optimizer.zero_grad()
        loss = criterion(model(input_ids, attention_mask), labels)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
