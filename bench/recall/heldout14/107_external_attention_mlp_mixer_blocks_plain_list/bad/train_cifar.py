import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from model.mlp.mlp_mixer import MlpMixer


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    train_set = datasets.CIFAR10("./data", train=True, download=True, transform=tf)
    loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4)

    # 32x32 images, 4x4 patches -> 64 tokens
    model = MlpMixer(num_classes=10, num_blocks=8, patch_size=4, tokens_hidden_dim=128,
                     channels_hidden_dim=512, tokens_mlp_dim=64, channels_mlp_dim=256).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)

    for epoch in range(10):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: last loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
