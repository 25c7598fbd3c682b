from .models.unet_2d import UNet2DModel
from .models.vae import DiagonalGaussianDistribution, VectorQuantizer
from .schedulers.scheduling_ddim import DDIMScheduler
from .schedulers.scheduling_ddpm import DDPMScheduler
from .schedulers.scheduling_sde_ve import ScoreSdeVeScheduler
