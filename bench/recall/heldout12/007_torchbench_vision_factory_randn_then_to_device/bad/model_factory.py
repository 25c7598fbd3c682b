import torch
import torch.optim as optim
import torchvision.models as models


class TorchVisionModel:
    DEFAULT_TRAIN_BSIZE = 32
    DEFAULT_EVAL_BSIZE = 64

    def __init__(self, model_name, test, device, batch_size=None, weights=None):
        self.test = test
        self.device = device
        self.batch_size = batch_size or (self.DEFAULT_TRAIN_BSIZE if test == "train" else self.DEFAULT_EVAL_BSIZE)
        self.model = getattr(models, model_name)(weights=weights).to(self.device)
        self.example_inputs = (torch.randn((self.batch_size, 3, 224, 224)).to(self.device),)  # expect: TCK201
        if test == "train":
            self.model.train()
            self.example_outputs = torch.randint(0, 1000, (self.batch_size,), device=self.device)
            self.loss_fn = torch.nn.CrossEntropyLoss()
            self.optimizer = optim.Adam(self.model.parameters())
        else:
            self.model.eval()

    def get_module(self):
        return self.model, self.example_inputs

    def train(self):
        self.optimizer.zero_grad()
        pred = self.model(*self.example_inputs)
        loss = self.loss_fn(pred, self.example_outputs)
        loss.backward()
        self.optimizer.step()

    def eval(self):
        with torch.no_grad():
            return self.model(*self.example_inputs)
