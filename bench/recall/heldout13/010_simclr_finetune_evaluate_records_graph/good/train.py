import logging

import numpy as np
import torch
import torch.nn as nn
from torch.optim import lr_scheduler


def finetune(encoder, mlp, dataloaders, args):
    """Freeze the encoder and train the supervised classification head with cross entropy."""
    optimiser = torch.optim.SGD(mlp.parameters(), lr=args.finetune_lr, momentum=0.9, weight_decay=1e-6)
    lr_decay = lr_scheduler.CosineAnnealingLR(optimiser, args.finetune_epochs)
    criterion = nn.CrossEntropyLoss().cuda()
    best_valid_acc = 0.0
    patience_counter = 0

    for epoch in range(args.finetune_epochs):
        encoder.eval()
        mlp.train()
        run_loss, run_top1 = 0.0, 0.0
        for inputs, target in dataloaders["train"]:
            inputs = inputs.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            optimiser.zero_grad()
            with torch.no_grad():
                h = encoder(inputs)
            output = mlp(h)
            loss = criterion(output, target)
            loss.backward()
            optimiser.step()
            run_loss += loss.item()
            run_top1 += (output.argmax(1) == target).float().mean().item()
        lr_decay.step()
        logging.info("[Finetune] loss: %.4f acc: %.4f", run_loss / len(dataloaders["train"]),
                     run_top1 / len(dataloaders["train"]))

        with torch.no_grad():
            valid_loss, valid_acc, valid_acc_top5 = evaluate(encoder, mlp, dataloaders, "valid", epoch, args)

        if valid_acc >= best_valid_acc:
            patience_counter = 0
            best_valid_acc = valid_acc
            state = {"encoder": encoder.state_dict(), "supp_mlp": mlp.state_dict(),
                     "optimiser": optimiser.state_dict(), "epoch": epoch}
            torch.save(state, args.checkpoint_dir[:-3] + "_finetune.pt")
        else:
            patience_counter += 1
            if patience_counter == args.patience:
                logging.info("Early stopping... no improvement after %d epochs.", args.patience)
                break


def evaluate(encoder, mlp, dataloaders, mode, epoch, args):
    """Evaluate the encoder and classification head with cross entropy."""
    criterion = nn.CrossEntropyLoss().cuda()
    encoder.eval()
    mlp.eval()
    run_loss, run_top1, run_top5 = 0.0, 0.0, 0.0
    for inputs, target in dataloaders[mode]:
        # Do not compute gradient for encoder and classification head
        encoder.zero_grad()
        mlp.zero_grad()
        inputs = inputs.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        h = encoder(inputs)
        output = mlp(h)
        loss = criterion(output, target)
        run_loss += loss.item()
        run_top1 += (output.argmax(-1) == target).float().mean().item()
        _, output_topk = output.topk(5, 1, True, True)
        run_top5 += (output_topk == target.view(-1, 1).expand_as(output_topk)).float().sum(1).mean().item()
    n = len(dataloaders[mode])
    logging.info("[%s] loss: %.4f acc: %.4f acc_top5: %.4f", mode, run_loss / n, run_top1 / n, run_top5 / n)
    return run_loss / n, run_top1 / n, run_top5 / n
