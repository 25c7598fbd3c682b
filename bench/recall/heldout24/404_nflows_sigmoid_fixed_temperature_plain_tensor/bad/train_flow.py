import torch

from nflows.transforms import CompositeTransform, Logit

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# dequantised images in (0, 1) mapped to the real line before the flow proper
preprocess = CompositeTransform([Logit(eps=1e-3)]).to(device)

x = torch.rand(64, 3 * 32 * 32, device=device)
z, logabsdet = preprocess(x)
print(z.shape, logabsdet.mean().item())
