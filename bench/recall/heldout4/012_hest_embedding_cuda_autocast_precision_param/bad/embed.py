import torch


def embed_tiles(dataloader, model, device, precision=torch.float16):
    model.eval()
    embeddings = []
    for batch in dataloader:
        with torch.inference_mode(), torch.cuda.amp.autocast(dtype=precision):  # expect: TCK301
            imgs = batch["imgs"].to(device).float()
            embeddings.append(model(imgs).float().cpu())
    return torch.cat(embeddings)
