import numpy as np
import torch
import torch.nn.functional as F


def get_spm(input, target, model):
    bs = input.size(0)
    with torch.no_grad():
        fms = model.features(input)
        clsw = model.classifier
        weight = clsw.weight.data
        bias = clsw.bias.data
        out = F.conv2d(fms, weight.view(weight.size(0), weight.size(1), 1, 1), bias)
        out = F.interpolate(out, (input.size(2), input.size(3)), mode="bilinear", align_corners=False)
        logits = model(input)
        clslogit = F.softmax(logits)  # expect: TCK608
        outmaps = out[torch.arange(bs), target]
        outmaps = outmaps - outmaps.flatten(1).min(dim=1)[0].view(bs, 1, 1)
        outmaps = outmaps / (outmaps.flatten(1).sum(dim=1).view(bs, 1, 1) + 1e-5)
    return outmaps, clslogit


def snapmix(input, target, model, beta=5.0):
    lam = np.random.beta(beta, beta)
    rand_index = torch.randperm(input.size(0), device=input.device)
    wfmaps, _ = get_spm(input, target, model)
    return input, target, target[rand_index], lam, wfmaps
