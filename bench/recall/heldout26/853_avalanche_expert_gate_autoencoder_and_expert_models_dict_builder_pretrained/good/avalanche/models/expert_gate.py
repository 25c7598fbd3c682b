"""Expert Gate (Aljundi et al., 2017): one autoencoder gate and one expert classifier per task,
both on top of a pretrained torchvision backbone picked by architecture name."""

import torch
import torch.nn as nn
from torch import sigmoid
from torch.nn.functional import mse_loss, softmax
from torchvision import models

from .utils import FeatureExtractorBackbone, Flatten


def AE_loss(target, reconstruction):
    return mse_loss(input=reconstruction, target=target, reduction="sum")


class ExpertAutoencoder(nn.Module):
    """Gate of one task: reconstructs the frozen backbone features of its inputs."""

    def __init__(self, shape, latent_dim, arch="alexnet", pretrained_flag=True,
                 device="cpu", output_layer_name="features"):
        super().__init__()
        # pretrained AlexNet (or another builder named by `arch`) used only as a preprocessor
        base_template = models.__dict__[arch](
            weights="AlexNet_Weights.DEFAULT" if pretrained_flag else None
        ).to(device)
        self.feature_module = FeatureExtractorBackbone(base_template, output_layer_name)
        self.shape = shape
        for param in self.feature_module.parameters():
            param.requires_grad = False

        flattened_size = torch.Size(shape).numel()
        self.encoder = nn.Sequential(Flatten(), nn.Linear(flattened_size, latent_dim), nn.ReLU())
        self.decoder = nn.Sequential(nn.Linear(latent_dim, flattened_size), nn.Sigmoid())

    def forward(self, x):
        x = sigmoid(self.feature_module(x))
        x = self.decoder(self.encoder(x))
        return x.view(-1, *self.shape)


class ExpertModel(nn.Module):
    """Expert classifier of one task, fine-tuned from the same backbone."""

    def __init__(self, num_classes, arch, device, pretrained_flag, feature_template=None):
        super().__init__()
        self.num_classes = num_classes
        base_template = models.__dict__[arch](
            weights="AlexNet_Weights.DEFAULT" if pretrained_flag else None
        ).to(device)

        if feature_template:
            self.feature_module = feature_template.feature_module
        else:
            self.feature_module = FeatureExtractorBackbone(base_template, "features")
        self.avg_pool = base_template._modules["avgpool"]
        self.flatten = Flatten()
        self.classifier_module = base_template._modules["classifier"]
        in_dim = self.classifier_module[-1].in_features
        self.classifier_module[-1] = nn.Linear(in_dim, self.num_classes)

    def forward(self, x):
        x = self.avg_pool(self.feature_module(x))
        return self.classifier_module(self.flatten(x))


class ExpertGate(nn.Module):
    """Holds one (autoencoder, expert) pair per task and routes an input to the best expert."""

    def __init__(self, shape, device, arch="alexnet", pretrained_flag=True, ae_latent_dim=100):
        super().__init__()
        self.shape = shape
        self.device = device
        self.arch = arch
        self.pretrained_flag = pretrained_flag
        self.ae_latent_dim = ae_latent_dim
        self.expert_dict = nn.ModuleDict()
        self.autoencoder_dict = nn.ModuleDict()

    def add_task(self, task_label, num_classes, template=None):
        key = str(task_label)
        self.autoencoder_dict[key] = ExpertAutoencoder(
            self.shape, self.ae_latent_dim, self.arch, self.pretrained_flag, self.device
        )
        self.expert_dict[key] = ExpertModel(
            num_classes, self.arch, self.device, self.pretrained_flag, feature_template=template
        )

    def forward(self, x):
        errors = []
        for autoencoder in self.autoencoder_dict.values():
            target = sigmoid(autoencoder.feature_module(x))
            errors.append(AE_loss(target, autoencoder(x)))
        best = int(torch.argmin(softmax(-torch.stack(errors), dim=0)))
        return list(self.expert_dict.values())[best](x)
