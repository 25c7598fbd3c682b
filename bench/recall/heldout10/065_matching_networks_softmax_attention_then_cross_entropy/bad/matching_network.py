import torch
import torch.nn as nn
import torch.nn.functional as F

from attentional_classify import AttentionalClassify


class Classifier(nn.Module):
    def __init__(self, num_channels=1, layer_size=64):
        super().__init__()
        layers = []
        in_ch = num_channels
        for _ in range(4):
            layers += [nn.Conv2d(in_ch, layer_size, 3, padding=1), nn.BatchNorm2d(layer_size), nn.ReLU(), nn.MaxPool2d(2)]
            in_ch = layer_size
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x).flatten(1)


class DistanceNetwork(nn.Module):
    def forward(self, support_set, input_image):
        # support_set: [seq, batch, dim], input_image: [batch, dim]
        sims = F.cosine_similarity(support_set, input_image.unsqueeze(0), dim=-1)
        return sims  # [seq, batch]


class MatchingNetwork(nn.Module):
    def __init__(self, num_channels=1):
        super(MatchingNetwork, self).__init__()
        self.g = Classifier(num_channels=num_channels)
        self.dn = DistanceNetwork()
        self.classify = AttentionalClassify()

    def forward(self, support_set_images, support_set_labels_one_hot, target_image, target_label):
        encoded_images = [self.g(support_set_images[:, i]) for i in range(support_set_images.size(1))]
        accuracy, crossentropy_loss = 0.0, 0.0
        for i in range(target_image.size(1)):
            encoded_images.append(self.g(target_image[:, i]))
            outputs = torch.stack(encoded_images)
            similarities = self.dn(support_set=outputs[:-1], input_image=outputs[-1]).t()
            preds = self.classify(similarities, support_set_y=support_set_labels_one_hot)
            values, indices = preds.max(1)
            if i == 0:
                accuracy = torch.mean((indices == target_label[:, i]).float())
                crossentropy_loss = F.cross_entropy(preds, target_label[:, i].long())  # expect: TCK605
            else:
                accuracy = accuracy + torch.mean((indices == target_label[:, i]).float())
                crossentropy_loss = crossentropy_loss + F.cross_entropy(preds, target_label[:, i].long())  # expect: TCK605
            encoded_images.pop()
        return accuracy / target_image.size(1), crossentropy_loss / target_image.size(1)
