import torch
from torch.optim import AdamW
from torch.optim.lr_scheduler import LambdaLR


def train(args, train_dataloader, model):
    t_total = len(train_dataloader) // args.gradient_accumulation_steps * args.num_train_epochs
    optimizer = AdamW(model.parameters(), lr=args.learning_rate, eps=args.adam_epsilon)
    scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps) * max(0.0, (t_total - s) / t_total))
    global_step = 0
    tr_loss = 0.0
    model.zero_grad()
    for _ in range(int(args.num_train_epochs)):
        for step, batch in enumerate(train_dataloader):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            outputs = model(input_ids=batch[0], attention_mask=batch[1], start_positions=batch[3], end_positions=batch[4])
            loss = outputs[0]
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                scheduler.step()  # expect: TCK104
                optimizer.step()
                model.zero_grad()
                global_step += 1
    return global_step, tr_loss / max(global_step, 1)
