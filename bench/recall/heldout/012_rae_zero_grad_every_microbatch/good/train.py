import torch


def train(model, optimizer, scheduler, loader, args):
    model.train()
    optimizer.zero_grad(set_to_none=True)
    for epoch in range(args.epochs):
        for step, (images, _) in enumerate(loader):
            images = images.cuda(non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(images) / args.grad_accum_steps
            loss.backward()
            if (step + 1) % args.grad_accum_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
