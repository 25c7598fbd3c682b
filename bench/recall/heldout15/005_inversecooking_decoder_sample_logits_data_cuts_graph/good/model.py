import torch
import torch.nn.functional as F
from torch import nn
from torchvision.models import resnet18

from decoder import IngredientDecoder


def label2onehot(labels, pad_value, vocab_size):
    onehot = torch.zeros(labels.size(0), vocab_size + 1, device=labels.device)
    onehot.scatter_(1, labels, 1)
    onehot = onehot[:, :-1]
    onehot[:, pad_value % vocab_size] = 0
    return onehot


class InverseCookingModel(nn.Module):
    def __init__(self, vocab_size, dim=256, pad_value=None):
        super().__init__()
        backbone = resnet18(weights=None)
        self.image_encoder = nn.Sequential(*list(backbone.children())[:-2])
        self.feat_proj = nn.Linear(512, dim)
        self.ingredient_decoder = IngredientDecoder(vocab_size, dim)
        self.vocab_size = vocab_size
        self.pad_value = vocab_size - 1 if pad_value is None else pad_value

    def encode(self, images):
        feats = self.image_encoder(images).flatten(2).transpose(1, 2)
        return self.feat_proj(feats)

    def forward(self, images, target_ingrs):
        img_features = self.encode(images)
        target = label2onehot(target_ingrs, self.pad_value, self.vocab_size)

        ingr_ids, ingr_logits = self.ingredient_decoder.sample(img_features, greedy=True)
        ingr_probs = F.softmax(ingr_logits, dim=-1).max(dim=1).values

        losses = {
            "ingr_loss": F.binary_cross_entropy(ingr_probs.clamp(1e-6, 1 - 1e-6), target),
            "card_penalty": (ingr_probs.sum(1) - target.sum(1)).abs().mean(),
        }
        return losses

    @torch.no_grad()
    def sample(self, images):
        img_features = self.encode(images)
        ingr_ids, ingr_probs = self.ingredient_decoder.sample(img_features, greedy=True)
        return {"ingr_ids": ingr_ids, "ingr_probs": ingr_probs.detach()}
