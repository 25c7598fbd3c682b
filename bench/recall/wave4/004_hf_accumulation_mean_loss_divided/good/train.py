import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, DataCollatorForSeq2Seq


def train(model_name, tokenizer, dataset, gradient_accumulation_steps=8):
    model = AutoModelForCausalLM.from_pretrained(model_name).cuda()
    collator = DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100)
    loader = DataLoader(dataset, batch_size=1, collate_fn=collator)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    window = []
    for batch in loader:
        window.append({k: v.cuda() for k, v in batch.items()})
        if len(window) < gradient_accumulation_steps:
            continue
        num_items = sum(int((b["labels"][:, 1:] != -100).sum()) for b in window)
        for b in window:
            logits = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
            token_sum = F.cross_entropy(
                logits[:, :-1].flatten(0, 1).float(), b["labels"][:, 1:].flatten(),
                ignore_index=-100, reduction="sum",
            )
            (token_sum / num_items).backward()
        optimizer.step()
        optimizer.zero_grad()
        window = []
