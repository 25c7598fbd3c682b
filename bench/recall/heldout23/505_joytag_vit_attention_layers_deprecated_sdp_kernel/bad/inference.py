import argparse

import torch

from Models import ViT


@torch.no_grad()
def predict(model, images, threshold: float = 0.4):
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=images.is_cuda):
        logits = model(images)
    probs = torch.sigmoid(logits.float())
    return [(p > threshold).nonzero().flatten().tolist() for p in probs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold", type=float, default=0.4)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = ViT(num_tags=512).to(device).eval()
    images = torch.rand(2, 3, 448, 448, device=device)
    print(predict(model, images, args.threshold))


if __name__ == "__main__":
    main()
