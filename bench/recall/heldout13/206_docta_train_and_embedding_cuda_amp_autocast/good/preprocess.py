import torch
import torch.nn.functional as F


def build_dataloader(cfg_loader, dataset):
    return torch.utils.data.DataLoader(
        dataset=dataset,
        batch_size=cfg_loader["batch_size"],
        num_workers=cfg_loader["num_workers"],
        shuffle=cfg_loader["shuffle"],
    )


def mean_pooling(token_embeddings, attention_mask):
    mask = attention_mask.unsqueeze(-1).to(token_embeddings.dtype)
    return (token_embeddings * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


def extract_embedding_batch(device, encoder, batch_feature):
    """Embed one batch; text encoders come as an (encoder, tokenizer) pair."""
    try:
        encoder, tokenizer = encoder
        encoded_input = {k: v.to(device) for k, v in tokenizer(batch_feature).items()}
        with torch.no_grad(), torch.amp.autocast("cuda"):
            token_embeddings = encoder(**encoded_input)
        sentence_embeddings = mean_pooling(token_embeddings, encoded_input["attention_mask"])
        embedding = F.normalize(sentence_embeddings, p=2, dim=1)
    except TypeError:
        # image encoders are a single callable
        with torch.no_grad(), torch.amp.autocast("cuda"):
            embedding = encoder(batch_feature.to(device))
    return embedding
