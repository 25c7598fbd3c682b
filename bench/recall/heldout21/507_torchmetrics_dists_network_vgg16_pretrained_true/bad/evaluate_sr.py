import torch

from image_metric import DeepImageStructureAndTextureSimilarity


def evaluate(generator, loader, device="cpu"):
    metric = DeepImageStructureAndTextureSimilarity(reduction="mean").to(device)
    generator.eval()
    with torch.no_grad():
        for low_res, high_res in loader:
            metric.update(generator(low_res.to(device)).clamp(0, 1), high_res.to(device))
    return metric.compute()


if __name__ == "__main__":
    generator = torch.nn.Upsample(scale_factor=2, mode="bicubic")
    loader = [(torch.rand(2, 3, 64, 64), torch.rand(2, 3, 128, 128)) for _ in range(3)]
    print(evaluate(generator, loader))
