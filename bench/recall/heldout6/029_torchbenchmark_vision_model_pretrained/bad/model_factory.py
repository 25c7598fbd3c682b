import torch
import torchvision.models as models


class TorchVisionModel:
    def __init__(self, model_name, device, batch_size=32):
        self.device = device
        self.model = getattr(models, model_name)(pretrained=True).to(device)  # expect: TCK909
        self.example_inputs = (torch.randn((batch_size, 3, 224, 224), device=device),)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        self.loss_fn = torch.nn.CrossEntropyLoss()

    def train(self):
        self.optimizer.zero_grad()
        pred = self.model(*self.example_inputs)
        target = torch.zeros(pred.shape[0], dtype=torch.long, device=self.device)
        self.loss_fn(pred, target).backward()
        self.optimizer.step()
