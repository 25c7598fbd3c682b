import math

import torch
from accelerate import Accelerator, DeepSpeedPlugin
from ray import train
from ray.train import ScalingConfig
from ray.train.torch import TorchTrainer
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_linear_schedule_with_warmup


def collate_fn(batch, tokenizer, block_size=512):
    out = tokenizer([ex["text"] for ex in batch], padding="longest", truncation=True,
                    max_length=block_size, return_tensors="pt")
    out["labels"] = out["input_ids"].clone()
    return out


def training_function(config):
    ds_plugin = DeepSpeedPlugin(hf_ds_config=config["ds_config"])
    accelerator = Accelerator(deepspeed_plugin=ds_plugin, gradient_accumulation_steps=config["grad_accum"])

    tokenizer = AutoTokenizer.from_pretrained(config["model_name"])
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(config["model_name"], torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    train_ds = train.get_dataset_shard("train")
    train_loader = train_ds.iter_torch_batches(
        batch_size=config["batch_size"], collate_fn=lambda b: collate_fn(b, tokenizer))

    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    num_steps = config["num_epochs"] * config["steps_per_epoch"]
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, 100, num_steps)
    model, optimizer, lr_scheduler = accelerator.prepare(model, optimizer, lr_scheduler)

    for epoch in range(config["num_epochs"]):
        model.train()
        loss_sum = 0.0
        for step, batch in enumerate(train_loader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()

            loss_sum += loss.item()
            if step % 10 == 0:
                aggregated_loss = torch.mean(accelerator.gather(loss[None])).item()
                accelerator.print(f"epoch {epoch} step {step} loss {aggregated_loss:.4f}")

        train_loss = loss_sum / (step + 1)
        train.report({"epoch": epoch, "train_loss": train_loss, "perplexity": math.exp(train_loss)})


if __name__ == "__main__":
    import ray

    config = {"model_name": "meta-llama/Llama-2-7b-hf", "batch_size": 8, "grad_accum": 1, "lr": 5e-4,
              "num_epochs": 1, "steps_per_epoch": 1000, "ds_config": "zero_3_llama_2_7b.json"}
    trainer = TorchTrainer(
        training_function,
        train_loop_config=config,
        scaling_config=ScalingConfig(num_workers=4, use_gpu=True),
        datasets={"train": ray.data.read_json("train.jsonl")},
    )
    trainer.fit()
