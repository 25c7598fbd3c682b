import os

import timm
import torch


def main(args, loader):
    model = timm.create_model(args.model, num_classes=args.num_classes).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    last_path = os.path.join(args.output, "last.pth.tar")
    if args.resume and os.path.exists(last_path):
        checkpoint = torch.load(last_path, map_location="cpu")
        state_dict = {k.removeprefix("_orig_mod."): v for k, v in checkpoint["state_dict"].items()}
        model.load_state_dict(state_dict)
        optimizer.load_state_dict(checkpoint["optimizer"])
    if args.torchcompile:
        model = torch.compile(model, backend=args.torchcompile)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save(
            {"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()},
            last_path,
        )
