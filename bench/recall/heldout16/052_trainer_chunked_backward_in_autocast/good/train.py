import torch

from models import Decoder, DiffusionPrior
from trainers import DecoderTrainer, PriorTrainer


def main(steps=1000):
    device = "cuda"
    prior_trainer = PriorTrainer(DiffusionPrior().to(device), max_grad_norm=0.5)
    decoder_trainer = DecoderTrainer(Decoder().to(device))
    for step in range(steps):
        text_embed = torch.randn(32, 512, device=device)
        image_embed = torch.randn(32, 512, device=device)
        images = torch.randn(16, 3, 64, 64, device=device)
        prior_loss = prior_trainer(text_embed, image_embed, max_batch_size=8)
        prior_trainer.update()
        for unet_number in (1, 2):
            decoder_trainer(images, unet_number=unet_number, max_batch_size=4)
            decoder_trainer.update(unet_number)
        if step % 100 == 0:
            print(step, prior_loss)


if __name__ == "__main__":
    main()
