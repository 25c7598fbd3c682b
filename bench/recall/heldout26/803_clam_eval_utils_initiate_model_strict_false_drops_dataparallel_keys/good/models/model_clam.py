"""CLAM: clustering-constrained attention multiple-instance learning for whole-slide images."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attn_Net_Gated(nn.Module):
    def __init__(self, L=1024, D=256, dropout=False, n_classes=1):
        super().__init__()
        self.attention_a = nn.Sequential(nn.Linear(L, D), nn.Tanh(), *( [nn.Dropout(0.25)] if dropout else []))
        self.attention_b = nn.Sequential(nn.Linear(L, D), nn.Sigmoid(), *( [nn.Dropout(0.25)] if dropout else []))
        self.attention_c = nn.Linear(D, n_classes)

    def forward(self, x):
        a = self.attention_a(x)
        b = self.attention_b(x)
        return self.attention_c(a.mul(b)), x


class CLAM(nn.Module):
    def __init__(self, gate=True, size_arg="small", dropout=False, k_sample=8, n_classes=2):
        super().__init__()
        size = {"small": [1024, 512, 256], "big": [1024, 512, 384]}[size_arg]
        fc = [nn.Linear(size[0], size[1]), nn.ReLU()]
        if dropout:
            fc.append(nn.Dropout(0.25))
        fc.append(Attn_Net_Gated(L=size[1], D=size[2], dropout=dropout, n_classes=1))
        self.attention_net = nn.Sequential(*fc)
        self.classifiers = nn.Linear(size[1], n_classes)
        self.instance_classifiers = nn.ModuleList([nn.Linear(size[1], 2) for _ in range(n_classes)])
        self.instance_loss_fn = nn.CrossEntropyLoss()
        self.k_sample = k_sample
        self.n_classes = n_classes

    def relocate(self):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if torch.cuda.device_count() > 1:
            device_ids = list(range(torch.cuda.device_count()))
            self.attention_net = nn.DataParallel(self.attention_net, device_ids=device_ids).to("cuda:0")
        else:
            self.attention_net = self.attention_net.to(device)
        self.classifiers = self.classifiers.to(device)
        self.instance_classifiers = self.instance_classifiers.to(device)
        self.instance_loss_fn = self.instance_loss_fn.to(device)

    def forward(self, h):
        A, h = self.attention_net(h)
        A = F.softmax(torch.transpose(A, 1, 0), dim=1)
        M = torch.mm(A, h)
        logits = self.classifiers(M)
        Y_hat = torch.topk(logits, 1, dim=1)[1]
        Y_prob = F.softmax(logits, dim=1)
        return logits, Y_prob, Y_hat, A, {}
