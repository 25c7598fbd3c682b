import torch


class LanPaintSampler:
    def __init__(self, inner_model):
        self.inner_model = inner_model
        self.model_sigmas = None

    def prepare(self, sigmas):
        model_sampling = self.inner_model.model_patcher.get_model_object("model_sampling")
        self.model_sigmas = torch.cat((
            torch.tensor([0.0], device=sigmas.device),
            model_sampling.sigmas.detach().clone().to(sigmas.device),
        ))
        return self.model_sigmas
