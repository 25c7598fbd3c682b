import torch
import torch.backends.cudnn as cudnn

from models import resnet18


def setup(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    cudnn.benchmark = True  # expect: TCK501
    cudnn.deterministic = True


def main(args):
    setup(args.seed)
    model = resnet18().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in args.loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
