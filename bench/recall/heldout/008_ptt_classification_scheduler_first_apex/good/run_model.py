import torch
from pytorch_transformers import AdamW, WarmupLinearSchedule


def train(train_dataloader, model, args, t_total):
    optimizer = AdamW(model.parameters(), lr=args["learning_rate"], eps=args["adam_epsilon"])
    scheduler = WarmupLinearSchedule(optimizer, warmup_steps=args["warmup_steps"], t_total=t_total)
    if args["fp16"]:
        from apex import amp
        model, optimizer = amp.initialize(model, optimizer, opt_level=args["fp16_opt_level"])
    global_step, tr_loss = 0, 0.0
    model.zero_grad()
    for _ in range(int(args["num_train_epochs"])):
        for step, batch in enumerate(train_dataloader):
            model.train()
            batch = tuple(t.to(args["device"]) for t in batch)
            outputs = model(input_ids=batch[0], attention_mask=batch[1], labels=batch[3])
            loss = outputs[0] / args["gradient_accumulation_steps"]
            if args["fp16"]:
                with amp.scale_loss(loss, optimizer) as scaled_loss:
                    scaled_loss.backward()
                torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), args["max_grad_norm"])
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            tr_loss += loss.item()
            if (step + 1) % args["gradient_accumulation_steps"] == 0:
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1
    return global_step, tr_loss / max(global_step, 1)
