import torch

from watchmal.engine.reconstruction import ReconstructionEngine


class ClassifierEngine(ReconstructionEngine):
    def __init__(self, model, rank, device, dump_path, target_key="labels"):
        super().__init__(target_key, model, rank, device, dump_path)
        self.softmax = torch.nn.Softmax(dim=1)
        self.model_out = None

    def process_target(self, data):
        self.target = data[self.target_key].to(self.device)

    def forward_pass(self):
        self.model_out = self.model(self.data)
        return {"softmax": self.softmax(self.model_out)}

    def compute_metrics(self):
        self.loss = self.criterion(self.model_out, self.target)
        accuracy = (self.model_out.argmax(dim=1) == self.target).float().mean()
        return {"loss": self.loss.detach(), "accuracy": accuracy}
