from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments

from orpo_trainer import ORPOTrainer


def tokenize(tokenizer, example, max_length=512):
    out = {}
    for side in ("chosen", "rejected"):
        enc = tokenizer(example["prompt"] + example[side], truncation=True, max_length=max_length,
                        padding="max_length")
        prompt_len = len(tokenizer(example["prompt"])["input_ids"])
        labels = [-100 if i < prompt_len or m == 0 else t
                  for i, (t, m) in enumerate(zip(enc["input_ids"], enc["attention_mask"]))]
        out[f"{side}_input_ids"] = enc["input_ids"]
        out[f"{side}_attention_mask"] = enc["attention_mask"]
        out[f"{side}_labels"] = labels
    return out


def main():
    tokenizer = AutoTokenizer.from_pretrained("facebook/opt-350m")
    model = AutoModelForCausalLM.from_pretrained("facebook/opt-350m")
    dataset = load_dataset("trl-lib/ultrafeedback_binarized", split="train")
    dataset = dataset.map(lambda ex: tokenize(tokenizer, ex), remove_columns=dataset.column_names)
    dataset.set_format("torch")
    args = TrainingArguments(output_dir="orpo-opt", per_device_train_batch_size=4, learning_rate=8e-6,
                             num_train_epochs=1, bf16=True, remove_unused_columns=False)
    ORPOTrainer(model=model, args=args, train_dataset=dataset, beta=0.1).train()


if __name__ == "__main__":
    main()
