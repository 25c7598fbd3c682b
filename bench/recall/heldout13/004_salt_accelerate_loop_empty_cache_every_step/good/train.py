import argparse
import functools

import torch
import yaml
from accelerate import Accelerator
from datasets import load_from_disk
from torch.utils.data import DataLoader
from tqdm import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer, get_scheduler

from utils import collate_fn, save_checkpoint


def train(model, dataloader, accelerator, optimizer, lr_scheduler, config, tokenizer,
          completed_steps, progress_bar):
    model.train()
    total_loss = 0
    acc_loss = 0
    for step, batch in enumerate(dataloader):
        with accelerator.accumulate(model):
            outputs = model(**batch, use_cache=False)
            loss = outputs.loss
            last_loss = loss.detach().float()
            total_loss += last_loss
            acc_loss += last_loss
            accelerator.backward(loss)

        if accelerator.sync_gradients:
            accelerator.clip_grad_norm_(model.parameters(), config["max_grad_norm"])
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            progress_bar.update(1)
            completed_steps += 1

            if completed_steps % config["logging_steps"] == 0:
                accelerator.log({"loss": (acc_loss / config["gradient_accumulation_steps"]).item()},
                                step=completed_steps)
            acc_loss = 0

            if completed_steps % config["checkpointing_steps"] == 0:
                save_checkpoint(model, accelerator, tokenizer, optimizer, lr_scheduler,
                                config["save_dir"], completed_steps)

        if completed_steps >= config["max_train_steps"]:
            break

    # empty the cache once, at the end of the epoch
    del batch, loss, outputs
    torch.cuda.empty_cache()

    return total_loss / len(dataloader), completed_steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        config = yaml.safe_load(f)

    accelerator = Accelerator(gradient_accumulation_steps=config["gradient_accumulation_steps"], log_with="wandb")
    tokenizer = AutoTokenizer.from_pretrained(config["base_model"])
    model = AutoModelForCausalLM.from_pretrained(config["base_model"], torch_dtype=torch.bfloat16,
                                                 attn_implementation="sdpa")
    train_data = load_from_disk(config["train_data"]).with_format("torch")
    dataloader = DataLoader(train_data, batch_size=config["train_batch_size"], shuffle=True,
                            collate_fn=functools.partial(collate_fn, tokenizer=tokenizer))
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["learning_rate"], weight_decay=0.01)
    lr_scheduler = get_scheduler("cosine", optimizer=optimizer, num_warmup_steps=config["warmup_steps"],
                                 num_training_steps=config["max_train_steps"])
    model, optimizer, dataloader, lr_scheduler = accelerator.prepare(model, optimizer, dataloader, lr_scheduler)
    accelerator.init_trackers("salt-asr-tts", config=config)

    completed_steps = 0
    progress_bar = tqdm(range(config["max_train_steps"]), disable=not accelerator.is_local_main_process)
    for epoch in range(config["num_epochs"]):
        train_loss, completed_steps = train(model, dataloader, accelerator, optimizer, lr_scheduler, config,
                                            tokenizer, completed_steps, progress_bar)
        accelerator.print(f"epoch {epoch}: train loss {train_loss.item():.4f}")
        if completed_steps >= config["max_train_steps"]:
            break
    accelerator.end_training()


if __name__ == "__main__":
    main()
