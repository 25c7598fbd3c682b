import torchvision.transforms as T


class DataTransform:
    def __init__(self, transform):
        self.transform = transform

    def __call__(self, sample):
        return self.transform(sample), self.transform(sample)


def get_simclr_transform(crop_size=96, s=1.0):
    color_jitter = T.ColorJitter(0.8 * s, 0.8 * s, 0.8 * s, 0.2 * s)
    return T.Compose([
        T.RandomResizedCrop(crop_size),
        T.RandomHorizontalFlip(),
        T.RandomApply([color_jitter], p=0.8),
        T.RandomGrayscale(p=0.2),
        T.ToTensor(),
    ])
