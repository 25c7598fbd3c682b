"""Hourglass camera-pose regressor (Melekhov et al., 2017): ResNet-34 encoder, transposed-conv decoder
with skip connections, and two linear heads for position and orientation."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import models


class HourglassBatch(nn.Module):
    def __init__(self, pretrained, sum_mode=False, dropout_rate=0.5, aux_logits=False):
        super(HourglassBatch, self).__init__()
        self.sum_mode = sum_mode
        self.dropout_rate = dropout_rate
        self.aux_logits = aux_logits
        base_model = models.resnet34(pretrained=pretrained)  # expect: TCK909

        # encoder: the ResNet stem and its four stages
        self.init_block = nn.Sequential(*list(base_model.children())[:4])
        self.res_block1 = base_model.layer1
        self.res_block2 = base_model.layer2
        self.res_block3 = base_model.layer3
        self.res_block4 = base_model.layer4

        # decoder: summed or concatenated skip connections
        skip = 1 if sum_mode else 2
        self.deconv_block1 = nn.ConvTranspose2d(512, 256, 3, stride=2, padding=1, output_padding=1, bias=False)
        self.deconv_block2 = nn.ConvTranspose2d(256 * skip, 128, 3, stride=2, padding=1, output_padding=1, bias=False)
        self.deconv_block3 = nn.ConvTranspose2d(128 * skip, 64, 3, stride=2, padding=1, output_padding=1, bias=False)
        self.conv_block = nn.Conv2d(64 * skip, 32, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(256)
        self.bn2 = nn.BatchNorm2d(128)
        self.bn3 = nn.BatchNorm2d(64)
        self.bn4 = nn.BatchNorm2d(32)
        self.bn5 = nn.BatchNorm1d(1024)

        self.fc_dim_reduce = nn.Linear(56 * 56 * 32, 1024)
        self.fc_trans = nn.Linear(1024, 3)
        self.fc_rot = nn.Linear(1024, 4)
        for module in [self.deconv_block1, self.deconv_block2, self.deconv_block3, self.conv_block,
                       self.fc_dim_reduce, self.fc_trans, self.fc_rot]:
            nn.init.kaiming_normal_(module.weight)
            if module.bias is not None:
                nn.init.constant_(module.bias, 0)

    def _merge(self, skip, x):
        return skip + x if self.sum_mode else torch.cat((skip, x), dim=1)

    def forward(self, x):
        x = self.init_block(x)
        x_res1 = self.res_block1(x)
        x_res2 = self.res_block2(x_res1)
        x_res3 = self.res_block3(x_res2)
        x_res4 = self.res_block4(x_res3)

        x = self._merge(x_res3, self.bn1(F.relu(self.deconv_block1(x_res4))))
        x = self._merge(x_res2, self.bn2(F.relu(self.deconv_block2(x))))
        x = self._merge(x_res1, self.bn3(F.relu(self.deconv_block3(x))))
        x = self.bn4(F.relu(self.conv_block(x)))

        x = x.flatten(start_dim=1)
        x = self.bn5(F.relu(self.fc_dim_reduce(x)))
        x = F.dropout(x, p=self.dropout_rate, training=self.training)
        return torch.cat((self.fc_trans(x), self.fc_rot(x)), dim=1)
