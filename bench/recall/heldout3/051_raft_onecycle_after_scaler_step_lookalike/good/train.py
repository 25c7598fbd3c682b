import torch
import torch.optim as optim


def fetch_optimizer(args, model):
    optimizer = optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wdecay, eps=args.epsilon)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, args.lr, args.num_steps + 100,
                                              pct_start=0.05, cycle_momentum=False, anneal_strategy="linear")
    return optimizer, scheduler


def train(args, model, train_loader, sequence_loss):
    optimizer, scheduler = fetch_optimizer(args, model)
    scaler = torch.amp.GradScaler("cuda", enabled=args.mixed_precision)
    total_steps = 0
    while total_steps < args.num_steps:
        for image1, image2, flow, valid in train_loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=args.mixed_precision):
                flow_predictions = model(image1.cuda(), image2.cuda(), iters=args.iters)
            loss = sequence_loss(flow_predictions, flow.cuda(), valid.cuda())
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            scaler.step(optimizer)
            scheduler.step()
            scaler.update()
            total_steps += 1
