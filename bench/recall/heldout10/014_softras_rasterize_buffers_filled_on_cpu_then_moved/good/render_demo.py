import torch

from soft_rasterize import soft_rasterize


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    faces = torch.rand(4, 500, 9, device=device) * 2 - 1
    textures = torch.rand(4, 500, 9, device=device)
    for _ in range(10):
        image = soft_rasterize(faces, textures, image_size=128, background_color=(1.0, 1.0, 1.0))
    print(image.shape, image.device)


if __name__ == "__main__":
    main()
