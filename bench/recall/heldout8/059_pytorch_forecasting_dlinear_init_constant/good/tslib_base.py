from torch import nn


class TslibBaseModel(nn.Module):
    def __init__(self, context_length, prediction_length):
        super().__init__()
        self.context_length = context_length
        self.prediction_length = prediction_length
