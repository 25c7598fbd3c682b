import contextlib

import torch
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast


class FixMatch:
    def __init__(self, model, optimizer, scheduler, p_cutoff=0.95, lambda_u=1.0):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.p_cutoff = p_cutoff
        self.lambda_u = lambda_u

    def train(self, args, loader_lb, loader_ulb):
        self.model.train()
        scaler = GradScaler()
        amp_cm = autocast if args.amp else contextlib.nullcontext
        for (x_lb, y_lb), (x_ulb_w, x_ulb_s) in zip(loader_lb, loader_ulb):
            num_lb = x_lb.shape[0]
            inputs = torch.cat((x_lb, x_ulb_w, x_ulb_s)).cuda(args.gpu)
            y_lb = y_lb.cuda(args.gpu)
            with amp_cm():
                logits = self.model(inputs)
                logits_x_lb = logits[:num_lb]
                logits_x_ulb_w, logits_x_ulb_s = logits[num_lb:].chunk(2)
                sup_loss = F.cross_entropy(logits_x_lb, y_lb)
                probs = torch.softmax(logits_x_ulb_w.detach(), dim=-1)
                max_probs, pseudo = probs.max(dim=-1)
                mask = max_probs.ge(self.p_cutoff).float()
                unsup_loss = (F.cross_entropy(logits_x_ulb_s, pseudo, reduction="none") * mask).mean()
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
            self.model.zero_grad()
