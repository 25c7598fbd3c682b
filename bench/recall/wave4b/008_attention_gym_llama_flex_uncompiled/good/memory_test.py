import argparse

from datasets import Dataset
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments, default_data_collator
from transformers.models.llama import modeling_llama

from flex_attention import LlamaFlexAttention

parser = argparse.ArgumentParser()
parser.add_argument("--model_name_or_path", default="meta-llama/Llama-3.1-8B")
parser.add_argument("--attention_type", default="flex")
parser.add_argument("--train_length", type=int, default=2048)
args = parser.parse_args()

if args.attention_type == "flex":
    modeling_llama.LlamaAttention = LlamaFlexAttention
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, attn_implementation="eager")
else:
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, attn_implementation=args.attention_type)

data = Dataset.from_dict({"input_ids": [[1] * args.train_length] * 64, "labels": [[1] * args.train_length] * 64})
training_args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, gradient_checkpointing=True, bf16=True)
Trainer(model=model, args=training_args, train_dataset=data, data_collator=default_data_collator).train()
