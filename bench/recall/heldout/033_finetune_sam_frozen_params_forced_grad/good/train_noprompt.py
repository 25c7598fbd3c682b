import torch


def train(sam, dataloader, criterion, args):
    for name, value in sam.named_parameters():
        value.requires_grad = "mask_decoder" in name or ("Adapter" in name and args.if_encoder_adapter)
    optimizer = torch.optim.AdamW((p for p in sam.parameters() if p.requires_grad), lr=args.lr)
    sam.train()
    for epoch in range(args.epochs):
        for images, masks in dataloader:
            images, masks = images.cuda(), masks.cuda()
            pred = sam(images)
            loss = criterion(pred, masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
