import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, DataCollatorForSeq2Seq


def train(model_name, tokenizer, dataset, gradient_accumulation_steps=8):
    model = AutoModelForCausalLM.from_pretrained(model_name).cuda()
    collator = DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100)
    loader = DataLoader(dataset, batch_size=1, collate_fn=collator)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for step, batch in enumerate(loader):
        batch = {k: v.cuda() for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss / gradient_accumulation_steps  # expect: TCK118
        loss.backward()
        if (step + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
