import unittest

import torch
from diffusers import ControlNetModel, UNet2DConditionModel
from diffusers.pipelines.controlnet.multicontrolnet import MultiControlNetModel


class MultiControlNetPipelineFastTests(unittest.TestCase):
    def get_dummy_components(self):
        torch.manual_seed(0)
        unet = UNet2DConditionModel(block_out_channels=(32, 64), layers_per_block=2, sample_size=32, in_channels=4, out_channels=4, cross_attention_dim=32)
        torch.manual_seed(0)

        def init_weights(m):
            if isinstance(m, torch.nn.Conv2d):
                torch.nn.init.normal_(m.weight)
                m.bias.data.fill_(1.0)

        controlnet1 = ControlNetModel(block_out_channels=(32, 64), layers_per_block=2, in_channels=4, cross_attention_dim=32, conditioning_embedding_out_channels=(16, 32))
        controlnet1.controlnet_down_blocks.apply(init_weights)
        torch.manual_seed(0)
        controlnet2 = ControlNetModel(block_out_channels=(32, 64), layers_per_block=2, in_channels=4, cross_attention_dim=32, conditioning_embedding_out_channels=(16, 32))
        controlnet2.controlnet_down_blocks.apply(init_weights)
        return {"unet": unet, "controlnet": MultiControlNetModel([controlnet1, controlnet2])}

    def test_components(self):
        components = self.get_dummy_components()
        self.assertEqual(len(components["controlnet"].nets), 2)
