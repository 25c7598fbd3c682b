import torch
import torch.nn.functional as F

from iresnet import iresnet50


class ArcFace(torch.nn.Module):
    def __init__(self, num_features=512, num_classes=1000, s=64.0, m=0.5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(num_classes, num_features) * 0.01)
        self.s, self.m = s, m

    def forward(self, emb, labels):
        cos = F.linear(F.normalize(emb), F.normalize(self.weight)).clamp(-1 + 1e-7, 1 - 1e-7)
        theta = torch.acos(cos)
        target = torch.cos(theta + self.m)
        one_hot = F.one_hot(labels, cos.shape[1]).bool()
        logits = torch.where(one_hot, target, cos) * self.s
        return F.cross_entropy(logits, labels)


def main(steps=1000):
    backbone = iresnet50().cuda().train()
    head = ArcFace().cuda()
    opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1, momentum=0.9, weight_decay=5e-4)
    for step in range(steps):
        img = torch.randn(64, 3, 112, 112, device="cuda")
        labels = torch.randint(0, 1000, (64,), device="cuda")
        loss = head(backbone(img), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(backbone.state_dict(), "backbone.pth")


if __name__ == "__main__":
    main()
