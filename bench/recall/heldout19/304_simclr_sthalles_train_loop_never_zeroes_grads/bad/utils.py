import torch


def get_negative_mask(batch_size):
    mask = torch.ones(2 * batch_size, 2 * batch_size, dtype=torch.bool)
    idx = torch.arange(batch_size)
    mask[idx, idx] = False
    mask[idx, idx + batch_size] = False
    mask[idx + batch_size, idx] = False
    mask[idx + batch_size, idx + batch_size] = False
    return mask[:batch_size]


def get_similarity_function(use_cosine_similarity):
    if use_cosine_similarity:
        cos1 = torch.nn.CosineSimilarity(dim=1)
        cos2 = torch.nn.CosineSimilarity(dim=2)
        return (lambda x, y: cos1(x, y)), (lambda x, y: cos2(x.unsqueeze(1), y.unsqueeze(0)))
    return (lambda x, y: (x * y).sum(dim=1)), (lambda x, y: x @ y.T)
