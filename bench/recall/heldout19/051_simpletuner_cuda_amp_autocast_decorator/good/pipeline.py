import torch

_torch_device = (
    "mps"
    if torch.backends.mps.is_available()
    else "cuda" if torch.cuda.is_available() else "cpu"
)


@torch.amp.autocast(_torch_device, dtype=torch.float32)
def optimized_scale(positive_flat, negative_flat):
    dot_product = torch.sum(positive_flat * negative_flat, dim=1, keepdim=True)
    squared_norm = torch.sum(negative_flat ** 2, dim=1, keepdim=True) + 1e-8
    return dot_product / squared_norm


class FlowMatchSampler:
    def __init__(self, transformer, num_steps=28, guidance_scale=5.0):
        self.transformer = transformer
        self.num_steps = num_steps
        self.guidance_scale = guidance_scale

    @torch.no_grad()
    def __call__(self, latents, cond, uncond):
        sigmas = torch.linspace(1.0, 0.0, self.num_steps + 1, device=latents.device)
        for i in range(self.num_steps):
            t = sigmas[i].expand(latents.shape[0])
            v_cond = self.transformer(latents, t, cond)
            v_uncond = self.transformer(latents, t, uncond)
            alpha = optimized_scale(v_cond.flatten(1), v_uncond.flatten(1)).view(-1, 1, 1, 1)
            v_uncond = v_uncond * alpha
            v = v_uncond + self.guidance_scale * (v_cond - v_uncond)
            latents = latents + (sigmas[i + 1] - sigmas[i]) * v
        return latents
