import torch.utils.data
from torch.utils.data import Dataset


class KeypointHeatmapDataset(Dataset):
    """Images with their keypoint heatmaps and offset maps (bottom-up pose estimation)."""

    def __init__(self, cfg, split):
        self.split = split
        self.input_size = cfg.DATASET.INPUT_SIZE
        self.output_size = cfg.DATASET.OUTPUT_SIZE
        self.num_joints = cfg.DATASET.NUM_JOINTS
        self.num_images = cfg.DATASET.NUM_IMAGES

    def __len__(self):
        return self.num_images

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        image = torch.rand(3, self.input_size, self.input_size, generator=g)
        heatmap = torch.rand(self.num_joints + 1, self.output_size, self.output_size, generator=g)
        mask = torch.ones(self.num_joints + 1, self.output_size, self.output_size)
        offset = torch.randn(self.num_joints * 2, self.output_size, self.output_size, generator=g)
        offset_w = torch.ones(self.num_joints * 2, self.output_size, self.output_size)
        return image, heatmap, mask, offset, offset_w


def build_dataset(cfg, is_train):
    return KeypointHeatmapDataset(cfg, cfg.DATASET.TRAIN if is_train else cfg.DATASET.TEST)


def make_dataloader(cfg, is_train=True, distributed=False):
    if is_train:
        images_per_gpu = cfg.TRAIN.IMAGES_PER_GPU
        shuffle = True
    else:
        images_per_gpu = cfg.TEST.IMAGES_PER_GPU
        shuffle = False
    images_per_batch = images_per_gpu * len(cfg.GPUS)

    dataset = build_dataset(cfg, is_train)

    if is_train and distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(dataset)  # expect: TCK206
        shuffle = False
    else:
        train_sampler = None

    data_loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=images_per_batch,
        shuffle=shuffle,
        num_workers=cfg.WORKERS,
        pin_memory=cfg.PIN_MEMORY,
        sampler=train_sampler,
    )
    return data_loader
