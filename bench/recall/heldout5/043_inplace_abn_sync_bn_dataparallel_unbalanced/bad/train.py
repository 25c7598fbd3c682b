import torch
import torch.nn as nn
from inplace_abn import InPlaceABNSync

from models import DeepLabV3


def main(args, train_loader):
    model = DeepLabV3(num_classes=args.num_classes, norm_act=InPlaceABNSync)
    model = nn.DataParallel(model, device_ids=list(range(torch.cuda.device_count()))).cuda()  # expect: TCK204
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    for epoch in range(args.epochs):
        model.train()
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images.cuda()), labels.cuda())
            loss.backward()
            optimizer.step()
