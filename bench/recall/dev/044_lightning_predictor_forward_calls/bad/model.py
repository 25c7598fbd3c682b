from torch import Tensor, nn

from dishts import DishTS


class BetaModel(nn.Module):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int, lookback: int) -> None:
        super().__init__()
        self.dishts = DishTS(input_size=input_size, lookback=lookback)
        self.lstm = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden_size, 16), nn.SiLU(inplace=True), nn.Linear(16, 1))

    def forward(self, x: Tensor) -> Tensor:
        x = self.dishts.forward(x)  # expect: TCK105
        out, hidden = self.lstm.forward(x)  # expect: TCK105
        out = self.head.forward(out)  # expect: TCK105
        return self.dishts.forward(out, inverse=True)  # expect: TCK105
