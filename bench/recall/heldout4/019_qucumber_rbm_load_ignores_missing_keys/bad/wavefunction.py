import torch

from rbm import BinaryRBM


class PositiveWavefunction:
    def __init__(self, num_visible, num_hidden):
        self.rbm_am = BinaryRBM(num_visible, num_hidden)

    def save(self, location):
        torch.save({"rbm_am": self.rbm_am.state_dict()}, location)

    def load(self, location):
        state_dict = torch.load(location, weights_only=True)
        self.rbm_am.load_state_dict(state_dict["rbm_am"], strict=False)  # expect: TCK403
