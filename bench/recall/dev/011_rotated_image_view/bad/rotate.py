import torch

image = torch.arange(8, dtype=torch.float32).view(2, 4)
image_rotated = image.transpose(0, 1)
image_flat = image_rotated.view(1, 8)  # expect: TCK705
print(image_flat)
