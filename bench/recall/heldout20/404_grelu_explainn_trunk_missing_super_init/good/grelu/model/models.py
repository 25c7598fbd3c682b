from torch import Tensor, nn

from grelu.model.heads import ConvHead
from grelu.model.trunks.explainn import ExplaiNNTrunk


class BaseModel(nn.Module):
    """Every model is an embedding trunk followed by a head."""

    def __init__(self, embedding: nn.Module, head: nn.Module) -> None:
        super().__init__()
        self.embedding = embedding
        self.head = head
        assert hasattr(self.head, "n_tasks"), "head does not have an attribute n_tasks."

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.embedding(x))


class ExplaiNNModel(BaseModel):
    def __init__(self, n_tasks: int, in_len: int, channels=300, kernel_size=19, dtype=None, device=None):
        super().__init__(
            embedding=ExplaiNNTrunk(in_len=in_len, channels=channels, kernel_size=kernel_size, dtype=dtype,
                                    device=device),
            head=ConvHead(n_tasks=n_tasks, in_channels=channels, dtype=dtype, device=device),
        )
