import os

import torch
import torch.nn as nn
import torch.optim as O

from model import SNLIClassifier


def run(args, config, train_iter):
    if args.resume_snapshot:
        model = torch.load(args.resume_snapshot, map_location=lambda storage, location: storage.cuda(args.gpu))  # expect: TCK401
    else:
        model = SNLIClassifier(config)
        model.cuda()

    criterion = nn.CrossEntropyLoss()
    opt = O.Adam(model.parameters(), lr=args.lr)
    iterations = 0
    for epoch in range(args.epochs):
        for batch in train_iter:
            model.train()
            opt.zero_grad()
            iterations += 1
            loss = criterion(model(batch), batch.label)
            loss.backward()
            opt.step()
            if iterations % args.save_every == 0:
                snapshot_path = os.path.join(args.save_path, "snapshot_iter_{}_model.pt".format(iterations))
                torch.save(model, snapshot_path)  # expect: TCK402
