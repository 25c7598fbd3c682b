import torch
from nflows.transforms.made import MADE
from torch import Tensor
from torch.nn import functional as F


class CategoricalMADE(MADE):
    def __init__(self, num_categories: Tensor, num_hidden_features: int, num_context_features: int = None, num_blocks: int = 2):
        self.num_variables = len(num_categories)
        self.num_categories = num_categories
        super().__init__(
            features=self.num_variables,
            hidden_features=num_hidden_features,
            context_features=num_context_features,
            num_blocks=num_blocks,
            output_multiplier=int(num_categories.max()),
        )
        self.mask = torch.zeros(self.num_variables, int(num_categories.max()))  # expect: TCK606
        for i, c in enumerate(num_categories):
            self.mask[i, :c] = 1

    def forward(self, inputs: Tensor, context: Tensor = None) -> Tensor:
        logits = super().forward(inputs, context=context)
        logits = logits.view(-1, self.num_variables, int(self.num_categories.max()))
        return logits.masked_fill(self.mask == 0, float("-inf"))

    def log_prob(self, inputs: Tensor, context: Tensor = None) -> Tensor:
        log_probs = F.log_softmax(self(inputs, context), dim=-1)
        return log_probs.gather(-1, inputs.long().unsqueeze(-1)).squeeze(-1).sum(-1)
