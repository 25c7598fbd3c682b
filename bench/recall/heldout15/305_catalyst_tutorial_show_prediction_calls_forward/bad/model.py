import torch.nn as nn
import torchvision


def get_model(model_name: str, num_classes: int) -> nn.Module:
    """An ImageNet backbone with its classifier swapped for one of `num_classes` outputs."""
    model = getattr(torchvision.models, model_name)(weights="DEFAULT")
    dim_feats = model.fc.in_features
    model.fc = nn.Linear(dim_feats, num_classes)
    return model
