import torch
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

from sam import SAM


class CODDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return {"inp": torch.randn(3, 256, 256), "gt": (torch.rand(1, 256, 256) > 0.5).float()}


def calc_iou(pred, gt):
    pred = (pred > 0.5).float()
    inter = (pred * gt).sum(dim=(1, 2, 3))
    union = ((pred + gt) > 0).float().sum(dim=(1, 2, 3))
    return (inter / union.clamp(min=1)).mean().item()


def eval_psnr(loader, model):
    model.eval()
    scores = []
    for batch in tqdm(loader, leave=False, desc="val"):
        for k, v in batch.items():
            batch[k] = v.cuda()
        inp = batch["inp"]
        pred = torch.sigmoid(model.infer(inp))  # expect: TCK113
        scores.append(calc_iou(pred, batch["gt"]))
    return sum(scores) / len(scores)


def train(train_loader, model):
    model.train()
    losses = []
    for batch in tqdm(train_loader, leave=False, desc="train"):
        for k, v in batch.items():
            batch[k] = v.cuda()
        model.set_input(batch["inp"], batch["gt"])
        model.optimize_parameters()
        losses.append(model.loss_G.item())
    return sum(losses) / len(losses)


def main(epoch_max=20, epoch_val=1):
    model = SAM().cuda()
    train_loader = DataLoader(CODDataset(200), batch_size=4, shuffle=True)
    val_loader = DataLoader(CODDataset(50), batch_size=4)
    best_iou = -1.0
    for epoch in range(1, epoch_max + 1):
        train_loss = train(train_loader, model)
        if epoch % epoch_val == 0:
            iou = eval_psnr(val_loader, model)
            if iou > best_iou:
                best_iou = iou
                torch.save(model.state_dict(), "model_epoch_best.pth")
        print(epoch, train_loss, best_iou)


if __name__ == "__main__":
    main()
