import torch


def dsm_score_estimation(scorenet, samples, sigma=0.01):
    perturbed = samples + torch.randn_like(samples) * sigma
    target = -1 / (sigma ** 2) * (perturbed - samples)
    scores = scorenet(perturbed)
    target = target.view(target.shape[0], -1)
    scores = scores.view(scores.shape[0], -1)
    return 0.5 * ((scores - target) ** 2).sum(dim=-1).mean(dim=0)
