import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ransac_voting import ransac_voting_layer


class KeypointNet(nn.Module):
    def __init__(self, num_keypoints=8):
        super().__init__()
        self.num_keypoints = num_keypoints
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        )
        self.mask_head = nn.Conv2d(64, 1, 1)
        self.vector_head = nn.Conv2d(64, num_keypoints * 2, 1)

    def forward(self, x):
        feat = self.backbone(x)
        return torch.sigmoid(self.mask_head(feat)), self.vector_head(feat)


class CoreTrainer:
    def __init__(self, model, optimizer, device):
        self.model = model
        self.optimizer = optimizer
        self.device = device

    def train(self, loader):
        self.model.train()
        for image, mask_gt, vec_gt in loader:
            image, mask_gt, vec_gt = image.to(self.device), mask_gt.to(self.device), vec_gt.to(self.device)
            mask_pred, vec_pred = self.model(image)
            loss = nn.functional.binary_cross_entropy(mask_pred, mask_gt) + nn.functional.smooth_l1_loss(
                vec_pred * mask_gt, vec_gt * mask_gt
            )
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def vote_keypoints(self, vec_map, mask):
        mask = (mask[:, 0] > 0.5).long()
        vec_map = vec_map.permute(0, 2, 3, 1)
        bs, h, w, n2 = vec_map.shape
        vec_map = vec_map.reshape(bs, h, w, n2 // 2, 2)
        vec_map = vec_map / vec_map.norm(dim=-1, keepdim=True).clamp_min(1e-6)
        return ransac_voting_layer(mask, vec_map)

    @torch.no_grad()
    def test(self, loader):
        self.model.eval()
        all_pts = []
        for image, _, _ in loader:
            mask_pred, vec_pred = self.model(image.to(self.device))
            all_pts.append(self.vote_keypoints(vec_pred, mask_pred).cpu())
        return torch.cat(all_pts)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.rand(32, 3, 64, 64), (torch.rand(32, 1, 64, 64) > 0.5).float(), torch.randn(32, 16, 64, 64))
    loader = DataLoader(data, batch_size=4, shuffle=True)
    model = KeypointNet().to(device)
    trainer = CoreTrainer(model, torch.optim.Adam(model.parameters(), lr=1e-3), device)
    for epoch in range(2):
        trainer.train(loader)
    keypoints = trainer.test(DataLoader(data, batch_size=4))
    print(keypoints.shape)


if __name__ == "__main__":
    main()
