import torch
import torch.nn as nn
import torch.nn.functional as F

from mpn import MPN


class MMD(nn.Module):
    """Maximum mean discrepancy between two batches of encodings (Gaussian kernels)."""

    def __init__(self, args):
        super(MMD, self).__init__()
        self.sigmas = torch.tensor([1e-2, 1e-1, 1, 5, 10, 100])

    def forward(self, x, y):
        def kernel(a, b):
            dist = torch.cdist(a, b).pow(2).unsqueeze(0)
            beta = 1.0 / (2.0 * self.sigmas.to(a.device).view(-1, 1, 1))
            return torch.exp(-beta * dist).sum(0)
        return kernel(x, x).mean() + kernel(y, y).mean() - 2 * kernel(x, y).mean()


class Classifier(nn.Module):
    def __init__(self, args):
        super(Classifier, self).__init__()
        self.net = nn.Sequential(nn.Dropout(p=0.2), nn.Linear(args.hidden_size, args.ffn_hidden_size),
                                 nn.ReLU(), nn.Linear(args.ffn_hidden_size, args.output_size))

    def forward(self, x):
        return self.net(x)


class MOE(nn.Module):
    """Mixture of experts over source domains, with a learned Mahalanobis gate and an MMD adversary."""

    def __init__(self, args):
        super(MOE, self).__init__()
        self.args = args
        self.num_sources = args.num_sources
        self.classifiers = nn.ModuleList([Classifier(args) for _ in range(args.num_sources)])
        self.encoder = MPN(args)
        self.mmd = MMD(args)
        self.Us = nn.ParameterList([nn.Parameter(torch.zeros(args.hidden_size, args.m_rank))
                                    for _ in range(args.num_sources)])
        self.mtl_criterion = nn.L1Loss()
        self.moe_criterion = nn.L1Loss()
        self.lambda_moe = args.lambda_moe
        self.lambda_critic = args.lambda_critic
        self.domain_encs = None

    def mahalanobis_metric(self, p, mu, j):
        d = (p - mu).mm(self.Us[j].mm(self.Us[j].t())).mm((p - mu).t())
        return d.diag().sqrt().detach()

    def forward(self, smiles):
        encodings = self.encoder(smiles)
        outputs = [clf(encodings) for clf in self.classifiers]
        alphas = torch.cat([-self.mahalanobis_metric(encodings, self.domain_encs[i], i).unsqueeze(0)
                            for i in range(self.num_sources)], dim=0)
        alphas = F.softmax(alphas, dim=0)
        return sum(alphas[j].unsqueeze(1) * outputs[j] for j in range(self.num_sources))

    def compute_domain_encs(self, all_train_smiles):
        """Mean encoding of each source domain; called once per epoch."""
        domain_encs = []
        for train_smiles in all_train_smiles:
            batches = [train_smiles[j:j + self.args.batch_size] for j in range(0, len(train_smiles), self.args.batch_size)]
            means = [self.encoder(b).mean(dim=0, keepdim=True) for b in batches]
            domain_encs.append(torch.cat(means, dim=0).mean(dim=0))
        self.domain_encs = domain_encs

    def compute_loss(self, train_smiles, train_labels, test_smiles):
        """Aggregate supervised, mixture and adversarial losses for one batch from every source."""
        encodings = [self.encoder(source_batch) for source_batch in train_smiles]
        labels = [torch.Tensor(list(tl)) for tl in train_labels]
        if self.args.cuda:
            labels = [tl.cuda() for tl in labels]
        supervised = torch.cat([self.classifiers[i](encodings[i]) for i in range(len(encodings))], dim=0)
        mtl_loss = self.mtl_criterion(supervised, torch.cat(labels, dim=0))

        adv_loss = self.mmd(torch.cat(encodings, dim=0), self.encoder(test_smiles))

        moe_loss = 0
        for i in range(len(encodings)):
            support = [j for j in range(len(encodings)) if j != i]
            alphas = F.softmax(torch.cat([-self.mahalanobis_metric(encodings[i], self.domain_encs[j], j).unsqueeze(0)
                                          for j in support], dim=0), dim=0)
            pred = sum(alphas[k].unsqueeze(1) * self.classifiers[j](encodings[i]) for k, j in enumerate(support))
            moe_loss = moe_loss + self.moe_criterion(pred, labels[i])

        return (1 - self.lambda_moe) * mtl_loss + self.lambda_moe * moe_loss - self.lambda_critic * adv_loss
