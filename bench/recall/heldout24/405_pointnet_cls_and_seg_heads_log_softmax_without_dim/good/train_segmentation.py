import argparse

import torch
import torch.nn.functional as F
import torch.optim as optim

from pointnet import PointNetDenseCls

parser = argparse.ArgumentParser()
parser.add_argument("--batchSize", type=int, default=32)
parser.add_argument("--num_points", type=int, default=2500)
parser.add_argument("--nepoch", type=int, default=25)
opt = parser.parse_args()

num_classes = 4
classifier = PointNetDenseCls(num_points=opt.num_points, k=num_classes)
if torch.cuda.is_available():
    classifier.cuda()
device = next(classifier.parameters()).device
optimizer = optim.SGD(classifier.parameters(), lr=0.01, momentum=0.9)

for epoch in range(opt.nepoch):
    # stand-in for the ShapeNet part loader: clouds (B, 3, N) and per-point labels (B, N)
    points = torch.randn(opt.batchSize, 3, opt.num_points, device=device)
    target = torch.randint(num_classes, (opt.batchSize, opt.num_points), device=device)
    classifier.train()
    pred, _ = classifier(points)
    loss = F.nll_loss(pred.view(-1, num_classes), target.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    correct = pred.view(-1, num_classes).argmax(1).eq(target.view(-1)).sum().item()
    print("[%d] loss %f accuracy %f" % (epoch, loss.item(), correct / float(opt.batchSize * opt.num_points)))
