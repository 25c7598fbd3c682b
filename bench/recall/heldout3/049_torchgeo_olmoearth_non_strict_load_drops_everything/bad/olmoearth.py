import torch.nn as nn


class OlmoEarthPretrain_v1(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.model = nn.ModuleDict({"encoder": encoder, "decoder": decoder})

    def forward(self, x):
        return self.model["decoder"](self.model["encoder"](x))


def olmoearth_v1(weights=None, build_encoder=None, build_decoder=None):
    model = OlmoEarthPretrain_v1(build_encoder(), build_decoder())
    if weights:
        state_dict = weights.get_state_dict(progress=True, weights_only=True)
        model.load_state_dict(state_dict, strict=False)  # expect: TCK403
    return model
