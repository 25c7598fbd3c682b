import torch


def train(sam, dataloader, criterion, args):
    for name, value in sam.named_parameters():
        value.requires_grad = "Adapter" in name and args.if_encoder_adapter
    optimizer = torch.optim.AdamW(sam.parameters(), lr=args.lr)
    sam.train()
    for epoch in range(args.epochs):
        for images, masks in dataloader:
            images, masks = images.cuda(), masks.cuda()
            pred = sam(images)
            loss = criterion(pred, masks)
            loss.requires_grad = True  # expect: TCK112
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
