import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import Regressor


class EvaluationLoop:
    def __init__(self, model, device, move_metrics_to_cpu=False):
        self.model = model
        self.device = device
        self.move_metrics_to_cpu = move_metrics_to_cpu

    def evaluation_step(self, batch):
        x, y = batch
        x, y = x.to(self.device), y.to(self.device)
        pred = self.model(x)
        return F.mse_loss(pred, y)

    def run(self, loader):
        self.model.eval()
        outputs = []
        with torch.no_grad():
            for batch in loader:
                output = self.evaluation_step(batch)
                output = output.detach()
                if self.move_metrics_to_cpu:
                    output = output.cpu()
                outputs.append(output)
        return torch.stack(outputs).mean()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(256, 16), torch.randn(256, 1))
    loader = DataLoader(data, batch_size=32)
    model = Regressor().to(device)
    loop = EvaluationLoop(model, device, move_metrics_to_cpu=True)
    print(loop.run(loader).item())
