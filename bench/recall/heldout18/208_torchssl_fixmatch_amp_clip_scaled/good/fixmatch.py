import contextlib
import copy

import torch
import torch.nn.functional as F
from torch.amp import GradScaler, autocast


class EMA:
    def __init__(self, model, decay=0.999):
        self.model = model
        self.shadow = copy.deepcopy(model).eval()
        self.shadow.requires_grad_(False)
        self.decay = decay

    @torch.no_grad()
    def update(self):
        for s, p in zip(self.shadow.parameters(), self.model.parameters()):
            s.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def consistency_loss(logits_s, logits_w, T=1.0, p_cutoff=0.95):
    probs = torch.softmax(logits_w.detach() / T, dim=-1)
    max_probs, pseudo_lb = probs.max(dim=-1)
    mask = max_probs.ge(p_cutoff).float()
    loss = (F.cross_entropy(logits_s, pseudo_lb, reduction="none") * mask).mean()
    return loss, mask.mean()


class FixMatch:
    def __init__(self, model, optimizer, scheduler, lambda_u=1.0, T=1.0, p_cutoff=0.95):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.ema = EMA(model)
        self.lambda_u = lambda_u
        self.T = T
        self.p_cutoff = p_cutoff
        self.it = 0

    def train(self, args, loader_lb, loader_ulb):
        self.model.train()
        scaler = GradScaler("cuda", enabled=args.amp)
        amp_cm = (lambda: autocast("cuda")) if args.amp else contextlib.nullcontext

        for (x_lb, y_lb), (x_ulb_w, x_ulb_s) in zip(loader_lb, loader_ulb):
            if self.it > args.num_train_iter:
                break
            num_lb = x_lb.shape[0]
            x_lb, y_lb = x_lb.cuda(args.gpu), y_lb.cuda(args.gpu)
            x_ulb_w, x_ulb_s = x_ulb_w.cuda(args.gpu), x_ulb_s.cuda(args.gpu)
            inputs = torch.cat((x_lb, x_ulb_w, x_ulb_s))

            with amp_cm():
                logits = self.model(inputs)
                logits_x_lb = logits[:num_lb]
                logits_x_ulb_w, logits_x_ulb_s = logits[num_lb:].chunk(2)
                sup_loss = F.cross_entropy(logits_x_lb, y_lb)
                unsup_loss, mask = consistency_loss(logits_x_ulb_s, logits_x_ulb_w, self.T, self.p_cutoff)
                total_loss = sup_loss + self.lambda_u * unsup_loss

            if args.amp:
                scaler.scale(total_loss).backward()
                if args.clip > 0:
                    scaler.unscale_(self.optimizer)
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.clip)
                scaler.step(self.optimizer)
                scaler.update()
            else:
                total_loss.backward()
                if args.clip > 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.clip)
                self.optimizer.step()

            self.scheduler.step()
            self.ema.update()
            self.model.zero_grad()
            self.it += 1
