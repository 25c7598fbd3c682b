import torch
from torch.utils.data import DataLoader, TensorDataset

from models import SRGANModel


def main():
    opt = {"scale": 4, "lr_g": 1e-4, "lr_d": 1e-4, "use_amp": True, "total_iter": 1000, "save_every": 500}
    device = torch.device("cuda")
    gt = torch.rand(256, 3, 128, 128)
    lq = torch.nn.functional.interpolate(gt, scale_factor=0.25, mode="bicubic", align_corners=False)
    loader = DataLoader(TensorDataset(lq, gt), batch_size=16, shuffle=True, num_workers=4, pin_memory=True)

    model = SRGANModel(opt, device)
    current_iter = 0
    while current_iter < opt["total_iter"]:
        for lq_batch, gt_batch in loader:
            current_iter += 1
            model.feed_data(lq_batch, gt_batch)
            logs = model.optimize_parameters(current_iter)
            if current_iter % 100 == 0:
                print(current_iter, logs)
            if current_iter % opt["save_every"] == 0:
                model.save(f"net_{current_iter}.pth", current_iter)
            if current_iter >= opt["total_iter"]:
                break


if __name__ == "__main__":
    main()
