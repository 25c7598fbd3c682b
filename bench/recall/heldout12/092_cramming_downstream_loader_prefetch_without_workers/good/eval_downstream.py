from types import SimpleNamespace

import torch
import transformers
from datasets import load_dataset

from backend.utils import prepare_downstream_dataloader


def main():
    cfg_impl = SimpleNamespace(threads=0, microbatch_size=32, pin_memory=False, prefetch_factor=2,
                               shuffle_in_dataloader=True, pad_to_multiple_of=8)
    tokenizer = transformers.AutoTokenizer.from_pretrained("bert-base-uncased")
    raw = load_dataset("glue", "sst2", split="validation")
    dataset = raw.map(lambda ex: tokenizer(ex["sentence"], truncation=True, max_length=128), batched=True)
    dataset = dataset.remove_columns(["sentence", "idx"]).rename_column("label", "labels")
    model = transformers.AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    model.eval()
    loader = prepare_downstream_dataloader(dataset, tokenizer, "eval", cfg_impl)
    correct = total = 0
    with torch.no_grad():
        for batch in loader:
            logits = model(**{k: v for k, v in batch.items() if k != "labels"}).logits
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
            total += batch["labels"].numel()
    print(f"accuracy: {correct / total:.4f}")


if __name__ == "__main__":
    main()
