import time

import torch
from tqdm import tqdm


def train(model, train_dataloader, eval_dataloader, optimizer, lr_scheduler,
          gradient_accumulation_steps, train_config):
    # Create a gradient scaler for fp16
    if train_config.use_fp16:
        scaler = torch.amp.GradScaler("cuda")
    train_loss, val_loss = [], []
    for epoch in range(train_config.num_epochs):
        start = time.perf_counter()
        model.train()
        total_loss = 0.0
        pbar = tqdm(total=len(train_dataloader) // gradient_accumulation_steps,
                    desc=f"Training Epoch: {epoch + 1}")
        for step, batch in enumerate(train_dataloader):
            for key in batch.keys():
                batch[key] = batch[key].to("cuda:0")
            loss = model(**batch).loss
            loss = loss / gradient_accumulation_steps
            total_loss += loss.detach().float()
            last = (step + 1) % gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1
            if train_config.use_fp16:
                # fp16: the gradient scaler handles the update
                scaler.scale(loss).backward()  # expect: TCK309
                if last:
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
                    pbar.update(1)
            else:
                loss.backward()
                if last:
                    optimizer.step()
                    optimizer.zero_grad()
                    pbar.update(1)
        pbar.close()
        train_loss.append(total_loss / len(train_dataloader))
        lr_scheduler.step()
        if train_config.run_validation:
            val_loss.append(evaluation(model, eval_dataloader))
        print(f"epoch {epoch + 1} took {time.perf_counter() - start:.1f}s")
    return {"train_loss": train_loss[-1], "val_loss": val_loss[-1] if val_loss else float("nan")}


@torch.no_grad()
def evaluation(model, eval_dataloader):
    model.eval()
    eval_loss = 0.0
    for batch in tqdm(eval_dataloader, desc="evaluating"):
        for key in batch.keys():
            batch[key] = batch[key].to("cuda:0")
        eval_loss += model(**batch).loss.detach().float()
    return eval_loss / len(eval_dataloader)
