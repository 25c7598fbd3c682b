from diffusion import GaussianDiffusion, TinyUnet
from trainer import Trainer

if __name__ == "__main__":
    diffusion = GaussianDiffusion(TinyUnet(), timesteps=1000)
    trainer = Trainer(diffusion, "path/to/images", train_batch_size=32, gradient_accumulate_every=2,
                      train_num_steps=700000, amp=True)
    trainer.train()
