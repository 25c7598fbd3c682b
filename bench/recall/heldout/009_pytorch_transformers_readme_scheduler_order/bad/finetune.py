import torch
from pytorch_transformers import AdamW, WarmupLinearSchedule


def fine_tune(model, train_data, lr, num_warmup_steps, num_total_steps, max_grad_norm=1.0):
    optimizer = AdamW(model.parameters(), lr=lr, correct_bias=False)
    scheduler = WarmupLinearSchedule(optimizer, warmup_steps=num_warmup_steps, t_total=num_total_steps)
    for batch in train_data:
        loss = model(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        scheduler.step()  # expect: TCK104
        optimizer.step()
        optimizer.zero_grad()
