import torch
import torch.nn.functional as F
from cog import BasePredictor, Input, Path

from model import StyleNet, load_image, save_image


class Predictor(BasePredictor):
    def setup(self):
        self.device = torch.device("cuda")
        self.net = StyleNet().to(self.device)
        self.net.load_state_dict(torch.load("weights.pth", map_location=self.device, weights_only=True))

    def predict(self, image: Path = Input(description="input image"), steps: int = 50) -> Path:
        target = load_image(image).to(self.device)
        optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        for _ in range(steps):
            optimizer.zero_grad()
            output = self.net(target)
            loss = F.mse_loss(output, target)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            result = self.net(target)
        return save_image(result, "out.png")
