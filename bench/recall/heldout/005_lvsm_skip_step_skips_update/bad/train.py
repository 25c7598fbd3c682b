import torch


def train(model, optimizer, lr_scheduler, loader, args):
    scaler = torch.amp.GradScaler("cuda", enabled=args.use_amp)
    for step, batch in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.use_amp):
            loss = model(batch)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # expect: TCK308
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=args.grad_clip)
        skip_optimizer_step = grad_norm.item() > args.allowed_gradnorm
        if skip_optimizer_step:
            print(f"step {step}: grad norm {grad_norm.item():.2f} too large, skipping optimizer step")
        if not skip_optimizer_step:
            scaler.step(optimizer)
            scaler.update()
            lr_scheduler.step()
