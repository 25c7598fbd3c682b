import torch
import torch.nn as nn

from pixtral import PixtralHFVisionModel


class LlavaMultiModalProjector(nn.Module):
    def __init__(self, vision_hidden_size: int, text_hidden_size: int):
        super().__init__()
        self.linear_1 = nn.Linear(vision_hidden_size, text_hidden_size)
        self.act = nn.GELU()
        self.linear_2 = nn.Linear(text_hidden_size, text_hidden_size)

    def forward(self, image_features: torch.Tensor) -> torch.Tensor:
        return self.linear_2(self.act(self.linear_1(image_features)))


class LlavaImageEncoder(nn.Module):
    """Turns the images of a request into embeddings for the language model."""

    def __init__(self, text_hidden_size: int = 4096):
        super().__init__()
        self.vision_tower = PixtralHFVisionModel()
        self.multi_modal_projector = LlavaMultiModalProjector(1024, text_hidden_size)

    @torch.inference_mode()
    def forward(self, images: list) -> torch.Tensor:
        return self.multi_modal_projector(self.vision_tower(images))


if __name__ == "__main__":
    encoder = LlavaImageEncoder(text_hidden_size=512)
    images = [torch.randn(3, 64, 96), torch.randn(3, 32, 32)]
    print(encoder(images).shape)
