import argparse
import time

import torch

from models.ganimation import GANimation


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cond_nc", type=int, default=17)
    parser.add_argument("--image_size", type=int, default=128)
    parser.add_argument("--lr_G", type=float, default=1e-4)
    parser.add_argument("--lr_D", type=float, default=1e-4)
    parser.add_argument("--lambda_D_prob", type=float, default=1.0)
    parser.add_argument("--lambda_D_cond", type=float, default=4000.0)
    parser.add_argument("--lambda_cyc", type=float, default=10.0)
    parser.add_argument("--lambda_mask", type=float, default=0.1)
    parser.add_argument("--lambda_D_gp", type=float, default=10.0)
    parser.add_argument("--train_G_every_n_iterations", type=int, default=5)
    parser.add_argument("--print_freq_s", type=int, default=60)
    opt = parser.parse_args()

    model = GANimation(opt)
    last_print = time.time()
    for i in range(10000):
        imgs = torch.randn(8, 3, opt.image_size, opt.image_size)
        real_cond, desired_cond = torch.rand(8, opt.cond_nc), torch.rand(8, opt.cond_nc)
        model.set_input(imgs, real_cond, desired_cond)
        model.optimize_parameters(train_generator=(i + 1) % opt.train_G_every_n_iterations == 0)
        if time.time() - last_print > opt.print_freq_s:
            errors = model.get_current_errors()
            print(" ".join(f"{k}:{v:.3f}" for k, v in errors.items()))
            last_print = time.time()


if __name__ == "__main__":
    main()
