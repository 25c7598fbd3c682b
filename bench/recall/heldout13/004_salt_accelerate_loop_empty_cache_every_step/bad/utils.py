import os

import torch


def left_pad_sequence(sequences, padding_value=0):
    max_length = max(seq.size(0) for seq in sequences)
    padded = [
        torch.cat([torch.full((max_length - seq.size(0),), padding_value, dtype=seq.dtype), seq])
        for seq in sequences
    ]
    return torch.stack(padded)


def collate_fn(batch, tokenizer, max_seq_length=1024):
    input_ids = [item["input_ids"][:max_seq_length] for item in batch]
    attention_mask = [item["attention_mask"][:max_seq_length] for item in batch]
    labels = [item["labels"][:max_seq_length] for item in batch]
    return {
        "input_ids": left_pad_sequence(input_ids, tokenizer.pad_token_id),
        "attention_mask": left_pad_sequence(attention_mask, 0),
        "labels": left_pad_sequence(labels, -100),
    }


def save_checkpoint(model, accelerator, tokenizer, optimizer, scheduler, save_dir, step):
    accelerator.wait_for_everyone()
    path = os.path.join(save_dir, f"checkpoint-{step}")
    unwrapped = accelerator.unwrap_model(model)
    unwrapped.save_pretrained(path, is_main_process=accelerator.is_main_process, safe_serialization=False)
    if accelerator.is_main_process:
        tokenizer.save_pretrained(path)
        torch.save(optimizer.state_dict(), os.path.join(path, "optimizer.pt"))
        torch.save(scheduler.state_dict(), os.path.join(path, "scheduler.pt"))
