import torch
import torch.nn.functional as F

from model import myModel, num_label


def span_loss(span_logits, span_label, seq_mask):
    mask = seq_mask.unsqueeze(1) * seq_mask.unsqueeze(2)
    loss = F.cross_entropy(span_logits.view(-1, num_label), span_label.view(-1), reduction="none")
    return (loss * mask.view(-1)).sum() / mask.sum()


def train(loader, pre_train_dir, epochs=10, device="cuda"):
    model = myModel(pre_train_dir, dropout_rate=0.5).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for epoch in range(epochs):
        model.train()
        for input_ids, input_mask, input_seg, span_label in loader:
            input_ids, input_mask = input_ids.to(device), input_mask.to(device)
            input_seg, span_label = input_seg.to(device), span_label.to(device)
            span_logits = model(input_ids, input_mask, input_seg, is_training=True)
            loss = span_loss(span_logits, span_label, input_mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())
