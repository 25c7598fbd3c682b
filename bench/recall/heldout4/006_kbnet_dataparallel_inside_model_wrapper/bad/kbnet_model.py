import torch


class KBNetModel:
    def __init__(self, device):
        self.device = device
        self.sparse_to_dense_pool = torch.nn.Conv2d(1, 8, 3, padding=1).to(device)
        self.depth_model = torch.nn.Sequential(torch.nn.Conv2d(11, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(32, 1, 3, padding=1)).to(device)

    def forward(self, image, sparse_depth):
        filtered = self.sparse_to_dense_pool(sparse_depth)
        return self.depth_model(torch.cat([image, filtered], dim=1))

    def parameters(self):
        return list(self.sparse_to_dense_pool.parameters()) + list(self.depth_model.parameters())

    def data_parallel(self):
        self.sparse_to_dense_pool = torch.nn.DataParallel(self.sparse_to_dense_pool)  # expect: TCK204
        self.depth_model = torch.nn.DataParallel(self.depth_model)  # expect: TCK204

    def compute_loss(self, output_depth, sparse_depth):
        mask = (sparse_depth > 0).float()
        return ((output_depth - sparse_depth).abs() * mask).sum() / mask.sum()
