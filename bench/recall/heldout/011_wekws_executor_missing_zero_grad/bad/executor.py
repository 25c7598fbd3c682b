import torch
from torch.nn.utils import clip_grad_norm_

from loss import criterion


class Executor:
    def __init__(self):
        self.step = 0

    def train(self, model, optimizer, data_loader, device, args):
        model.train()
        clip = args.get("grad_clip", 50.0)
        for batch_idx, (key, feats, target, feats_lengths) in enumerate(data_loader):
            feats = feats.to(device)
            target = target.to(device)
            feats_lengths = feats_lengths.to(device)
            logits, _ = model(feats)
            loss, acc = criterion(args.get("criterion", "max_pooling"), logits, target, feats_lengths)
            loss.backward()
            grad_norm = clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()  # expect: TCK102
            self.step += 1
