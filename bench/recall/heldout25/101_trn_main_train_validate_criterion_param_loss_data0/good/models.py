from torch import nn
import torchvision


class TSN(nn.Module):
    """Temporal segment network: a 2D backbone over sampled frames, then a consensus over segments."""

    def __init__(self, num_class, num_segments, modality, base_model="resnet101", consensus_type="avg",
                 dropout=0.8, img_feature_dim=256, partial_bn=True):
        super().__init__()
        self.modality = modality
        self.num_segments = num_segments
        self.consensus_type = consensus_type
        self.img_feature_dim = img_feature_dim
        self.base_model = getattr(torchvision.models, base_model)(pretrained=True)
        feature_dim = self.base_model.fc.in_features
        self.base_model.fc = nn.Dropout(p=dropout)
        self.new_fc = nn.Linear(feature_dim, num_class)
        self.crop_size = 224
        self.scale_size = 256
        self.input_mean = [0.485, 0.456, 0.406]
        self.input_std = [0.229, 0.224, 0.225]
        self._enable_pbn = partial_bn

    def partialBN(self, enable):
        self._enable_pbn = enable

    def get_optim_policies(self):
        return [{"params": list(self.parameters()), "lr_mult": 1, "decay_mult": 1, "name": "all"}]

    def get_augmentation(self):
        return torchvision.transforms.RandomHorizontalFlip()

    def forward(self, x):
        b = x.size(0)
        x = x.view((-1, 3) + x.size()[-2:])
        out = self.new_fc(self.base_model(x))
        return out.view(b, self.num_segments, -1).mean(dim=1)
