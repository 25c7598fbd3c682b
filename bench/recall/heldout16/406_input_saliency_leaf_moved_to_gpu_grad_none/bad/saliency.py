import numpy as np
import torch

from model import SmallCNN

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def input_gradients(model, images, labels):
    """Gradient of the class score with respect to each input pixel."""
    model.eval()
    x = torch.tensor(images, dtype=torch.float32, requires_grad=True).to(device)  # expect: TCK108
    scores = model(x)
    picked = scores.gather(1, torch.as_tensor(labels, device=device).view(-1, 1)).sum()
    picked.backward()
    return x.grad.abs().amax(dim=1)


def main():
    model = SmallCNN().to(device)
    model.load_state_dict(torch.load("cnn.pt", map_location=device, weights_only=True))
    images = np.random.rand(4, 1, 28, 28).astype(np.float32)
    labels = np.array([3, 1, 4, 1])
    maps = input_gradients(model, images, labels)
    print(maps.shape, float(maps.max()))


if __name__ == "__main__":
    main()
