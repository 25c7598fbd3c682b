import torch
import torch.nn.functional as F

from cnn_architectures import ARCH_DICT


class CNN:
    """Spectrogram classifier wrapping one of the architecture helpers."""

    def __init__(self, architecture, classes, sample_shape=(3, 224, 224), pretrained=True):
        self.classes = classes
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.network = ARCH_DICT[architecture](len(classes), use_pretrained=pretrained).to(self.device)
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
        self.sample_shape = sample_shape

    def train(self, loader, epochs=1):
        self.network.train()
        for _ in range(epochs):
            for specs, labels in loader:
                specs, labels = specs.to(self.device), labels.to(self.device)
                self.optimizer.zero_grad()
                loss = F.binary_cross_entropy_with_logits(self.network(specs), labels.float())
                loss.backward()
                self.optimizer.step()

    @torch.no_grad()
    def predict(self, specs):
        self.network.eval()
        return torch.sigmoid(self.network(specs.to(self.device))).cpu()


if __name__ == "__main__":
    data = torch.utils.data.TensorDataset(torch.randn(32, 3, 224, 224), torch.randint(0, 2, (32, 2)))
    model = CNN("resnet18", classes=["woodpecker", "thrush"])
    model.train(torch.utils.data.DataLoader(data, batch_size=8, shuffle=True))
    print(model.predict(torch.randn(4, 3, 224, 224)))
