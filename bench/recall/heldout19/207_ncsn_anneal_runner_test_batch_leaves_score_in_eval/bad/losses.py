import torch


def anneal_dsm_score_estimation(scorenet, samples, labels, sigmas, anneal_power=2.0):
    used_sigmas = sigmas[labels].view(samples.shape[0], *([1] * len(samples.shape[1:])))
    perturbed = samples + torch.randn_like(samples) * used_sigmas
    target = -1 / (used_sigmas ** 2) * (perturbed - samples)
    scores = scorenet(perturbed, labels)
    target = target.view(target.shape[0], -1)
    scores = scores.view(scores.shape[0], -1)
    loss = 0.5 * ((scores - target) ** 2).sum(dim=-1) * used_sigmas.squeeze() ** anneal_power
    return loss.mean(dim=0)
