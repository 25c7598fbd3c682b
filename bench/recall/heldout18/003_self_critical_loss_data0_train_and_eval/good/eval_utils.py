import torch


def eval_split(model, crit, loader, max_batches=20):
    model.eval()
    loss_sum = 0.0
    loss_evals = 1e-8
    with torch.no_grad():
        for i, (fc_feats, labels, masks) in enumerate(loader):
            if i >= max_batches:
                break
            fc_feats, labels, masks = fc_feats.cuda(), labels.cuda(), masks.cuda()
            loss = crit(model(fc_feats, labels), labels[:, 1:], masks[:, 1:]).item()
            loss_sum = loss_sum + loss
            loss_evals = loss_evals + 1
    model.train()
    return loss_sum / loss_evals
