import torch


def train(model, loader, optimizer, args):
    original_model = model
    if args.torchcompile:
        model = torch.compile(original_model)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        original_model.load_state_dict(checkpoint["state_dict"])
    for epoch in range(args.epochs):
        for images, texts in loader:
            loss = model(images, texts)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        checkpoint_dict = {"epoch": epoch + 1, "state_dict": original_model.state_dict(), "optimizer": optimizer.state_dict()}
        torch.save(checkpoint_dict, args.resume or "epoch_latest.pt")
