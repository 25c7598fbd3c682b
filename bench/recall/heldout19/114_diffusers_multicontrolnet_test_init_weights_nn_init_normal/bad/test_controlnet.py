import unittest

import torch
from diffusers import (
    AutoencoderKL,
    ControlNetModel,
    DDIMScheduler,
    StableDiffusionControlNetPipeline,
    UNet2DConditionModel,
)
from diffusers.pipelines.controlnet.multicontrolnet import MultiControlNetModel


def make_controlnet():
    return ControlNetModel(
        block_out_channels=(4, 8),
        layers_per_block=2,
        in_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        cross_attention_dim=32,
        conditioning_embedding_out_channels=(16, 32),
        norm_num_groups=1,
    )


class StableDiffusionMultiControlNetPipelineFastTests(unittest.TestCase):
    pipeline_class = StableDiffusionControlNetPipeline

    def get_dummy_components(self):
        torch.manual_seed(0)
        unet = UNet2DConditionModel(
            block_out_channels=(4, 8),
            layers_per_block=2,
            sample_size=32,
            in_channels=4,
            out_channels=4,
            down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
            up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
            cross_attention_dim=32,
            norm_num_groups=1,
        )
        torch.manual_seed(0)

        def init_weights(m):
            if isinstance(m, torch.nn.Conv2d):
                torch.nn.init.normal(m.weight)  # expect: TCK917
                m.bias.data.fill_(1.0)

        controlnet1 = make_controlnet()
        controlnet1.controlnet_down_blocks.apply(init_weights)
        torch.manual_seed(0)
        controlnet2 = make_controlnet()
        controlnet2.controlnet_down_blocks.apply(init_weights)

        torch.manual_seed(0)
        scheduler = DDIMScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear",
                                  clip_sample=False, set_alpha_to_one=False)
        torch.manual_seed(0)
        vae = AutoencoderKL(block_out_channels=[4, 8], in_channels=3, out_channels=3,
                            down_block_types=["DownEncoderBlock2D", "DownEncoderBlock2D"],
                            up_block_types=["UpDecoderBlock2D", "UpDecoderBlock2D"],
                            latent_channels=4, norm_num_groups=2)
        controlnet = MultiControlNetModel([controlnet1, controlnet2])
        return {"unet": unet, "controlnet": controlnet, "scheduler": scheduler, "vae": vae}

    def test_control_guidance_switch(self):
        components = self.get_dummy_components()
        self.assertEqual(len(components["controlnet"].nets), 2)


class StableDiffusionMultiControlNetOneModelPipelineFastTests(unittest.TestCase):
    pipeline_class = StableDiffusionControlNetPipeline

    def get_dummy_components(self):
        torch.manual_seed(0)

        def init_weights(m):
            if isinstance(m, torch.nn.Conv2d):
                torch.nn.init.normal(m.weight)  # expect: TCK917
                m.bias.data.fill_(1.0)

        controlnet = make_controlnet()
        controlnet.controlnet_down_blocks.apply(init_weights)
        return {"controlnet": MultiControlNetModel([controlnet])}

    def test_single_controlnet_in_multi_wrapper(self):
        components = self.get_dummy_components()
        self.assertEqual(len(components["controlnet"].nets), 1)


if __name__ == "__main__":
    unittest.main()
