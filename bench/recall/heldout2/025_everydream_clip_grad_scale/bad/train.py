import torch
from torch.cuda.amp import GradScaler


def train(args, unet, text_encoder, train_dataloader, optimizer, get_model_prediction_and_target):
    scaler = GradScaler(enabled=args.amp, init_scale=2**17.5, growth_factor=2, backoff_factor=0.5, growth_interval=25)
    global_step = 0
    for epoch in range(args.max_epochs):
        for step, batch in enumerate(train_dataloader):
            with torch.autocast("cuda", enabled=args.amp):
                model_pred, target = get_model_prediction_and_target(batch["image"], batch["tokens"])
                loss = torch.nn.functional.mse_loss(model_pred.float(), target.float(), reduction="mean")
            scaler.scale(loss).backward()
            if args.clip_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(parameters=unet.parameters(), max_norm=args.clip_grad_norm)  # expect: TCK305
            if (global_step + 1) % args.grad_accum == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
            global_step += 1
