import torch
import torch.nn as nn

from convex_adversarial import robust_loss


def train_robust(loader, model, opt, epsilon, epoch, log, verbose, alpha_grad, scatter_grad, l1_proj):
    model.train()
    for i, (X, y) in enumerate(loader):
        X, y = X.cuda(), y.cuda().long()
        if y.dim() == 2:
            y = y.squeeze(1)

        robust_ce, robust_err = robust_loss(model, epsilon, X, y, alpha_grad=alpha_grad, scatter_grad=scatter_grad, l1_proj=l1_proj)

        out = model(X)
        ce = nn.CrossEntropyLoss()(out, y)
        err = (out.detach().max(1)[1] != y).float().sum() / X.size(0)

        opt.zero_grad()
        robust_ce.backward()
        opt.step()

        if i % verbose == 0:
            print(epoch, i, robust_ce.item(), robust_err.item(), ce.item(), err.item(), file=log)
            log.flush()

        del X, y, robust_ce, out, ce
    torch.cuda.empty_cache()


def evaluate_robust(loader, model, epsilon, epoch, log, verbose):
    model.eval()
    with torch.no_grad():
        for i, (X, y) in enumerate(loader):
            X, y = X.cuda(), y.cuda().long()
            if y.dim() == 2:
                y = y.squeeze(1)
            robust_ce, robust_err = robust_loss(model, epsilon, X, y, alpha_grad=True, scatter_grad=True)
            out = model(X)
            ce = nn.CrossEntropyLoss()(out, y)
            err = (out.max(1)[1] != y).float().sum() / X.size(0)

            if i % verbose == 0:
                print(epoch, i, robust_ce.item(), robust_err.item(), ce.item(), err.item(), file=log)
                log.flush()

            del X, y, robust_ce, out, ce
    torch.cuda.empty_cache()


def train_baseline(loader, model, opt, epoch, log, verbose):
    model.train()
    for i, (X, y) in enumerate(loader):
        X, y = X.cuda(), y.cuda()
        out = model(X)
        ce = nn.CrossEntropyLoss()(out, y)
        err = (out.detach().max(1)[1] != y).float().sum() / X.size(0)

        opt.zero_grad()
        ce.backward()
        opt.step()

        if i % verbose == 0:
            print(epoch, i, ce.item(), err.item(), file=log)
            log.flush()
