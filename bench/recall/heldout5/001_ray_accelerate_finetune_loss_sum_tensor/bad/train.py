import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup


def training_function(config, train_loader):
    accelerator = Accelerator(gradient_accumulation_steps=config["grad_accum"])
    model = AutoModelForCausalLM.from_pretrained(config["model_name"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, 100, config["num_steps"])
    model, optimizer, train_loader, lr_scheduler = accelerator.prepare(model, optimizer, train_loader, lr_scheduler)

    for epoch in range(config["num_epochs"]):
        model.train()
        loss_sum = torch.tensor(0.0, device=accelerator.device)
        for step, batch in enumerate(train_loader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            loss_sum += loss  # expect: TCK101
        mean_loss = loss_sum / (step + 1)
        accelerator.print(f"epoch {epoch}: mean train loss {mean_loss.item():.4f}")
