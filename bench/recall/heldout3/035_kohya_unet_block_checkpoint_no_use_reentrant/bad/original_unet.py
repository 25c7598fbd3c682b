import torch
import torch.utils.checkpoint
from torch import nn


class DownBlock2D(nn.Module):
    def __init__(self, resnets, downsamplers=None):
        super().__init__()
        self.resnets = nn.ModuleList(resnets)
        self.downsamplers = nn.ModuleList(downsamplers) if downsamplers else None
        self.gradient_checkpointing = False

    def forward(self, hidden_states, temb=None):
        output_states = ()
        for resnet in self.resnets:
            if self.training and self.gradient_checkpointing:

                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs)

                    return custom_forward

                hidden_states = torch.utils.checkpoint.checkpoint(create_custom_forward(resnet), hidden_states, temb)  # expect: TCK906
            else:
                hidden_states = resnet(hidden_states, temb)
            output_states += (hidden_states,)
        if self.downsamplers is not None:
            for downsampler in self.downsamplers:
                hidden_states = downsampler(hidden_states)
            output_states += (hidden_states,)
        return hidden_states, output_states
