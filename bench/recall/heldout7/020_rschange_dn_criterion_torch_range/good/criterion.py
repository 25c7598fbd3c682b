import torch
import torch.nn as nn
import torch.nn.functional as F


class DenoisingSetCriterion(nn.Module):
    def __init__(self, num_classes, dn_weight=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.dn_weight = dn_weight

    def dn_indices(self, targets, num_groups, pad_size):
        indices = []
        for i in range(len(targets)):
            if len(targets[i]["labels"]) > 0:
                t = torch.arange(len(targets[i]["labels"])).long().cuda()
                t = t.unsqueeze(0).repeat(num_groups, 1)
                out_idx = (torch.arange(num_groups) * pad_size).long().cuda().unsqueeze(1) + t
                indices.append((out_idx.flatten(), t.flatten()))
            else:
                empty = torch.tensor([], dtype=torch.long).cuda()
                indices.append((empty, empty))
        return indices

    def forward(self, dn_logits, targets, num_groups, pad_size):
        loss = dn_logits.new_zeros(())
        for b, (src, tgt) in enumerate(self.dn_indices(targets, num_groups, pad_size)):
            if src.numel() == 0:
                continue
            labels = targets[b]["labels"][tgt]
            loss = loss + F.cross_entropy(dn_logits[b, src], labels)
        return self.dn_weight * loss
