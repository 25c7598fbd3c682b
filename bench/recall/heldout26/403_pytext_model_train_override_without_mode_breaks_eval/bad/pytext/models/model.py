from typing import List

import torch
import torch.nn as nn

from pytext.common.constants import Stage
from pytext.config.component import Component


class Model(nn.Module, Component):
    """Generic model: embedding -> representation -> decoder, plus an output layer for loss/predictions.

    The model also keeps a stage flag (train, eval or test), because PyTorch's own
    training flag cannot tell evaluation from test.
    """

    __EXPANSIBLE__ = True

    def __init__(self, embedding, representation, decoder, output_layer, stage=Stage.TRAIN) -> None:
        nn.Module.__init__(self)
        self.embedding = embedding
        self.representation = representation
        self.decoder = decoder
        self.output_layer = output_layer
        self.stage = stage

    def train(self):  # expect: TCK610
        """Override to set stage."""
        super().train()
        self.stage = Stage.TRAIN

    def eval(self, stage=Stage.TEST):
        """Override to set stage."""
        super().eval()
        self.stage = stage

    def get_loss(self, logit, target, context):
        return self.output_layer.get_loss(logit, target, context)

    def get_pred(self, logit, target, context, *args):
        return self.output_layer.get_pred(logit, target, context)

    def forward(self, *inputs) -> List[torch.Tensor]:
        token_emb = self.embedding(inputs[0])
        rep = self.representation(token_emb, *inputs[1:])
        if isinstance(rep, tuple):
            rep = rep[0]
        return self.decoder(rep)
