import torch

from .megatron_fsdp import MegatronFSDP


def fully_shard_model(module, fsdp_unit_modules=None, device=None):
    """User entry point: shard `module` and return the wrapper to train with."""
    return MegatronFSDP(module, device=device, fsdp_unit_modules=fsdp_unit_modules)


def train_steps(model, optimizer, batches, loss_fn):
    model.train()
    for inputs, targets in batches:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return model


def build_toy(vocab=128, dim=64, layers=2):
    class Toy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(vocab, dim)
            self.blocks = torch.nn.ModuleList(torch.nn.TransformerEncoderLayer(dim, 4, batch_first=True)
                                              for _ in range(layers))
            self.head = torch.nn.Linear(dim, vocab)

        def forward(self, tokens):
            x = self.embed(tokens)
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    model = Toy()
    return fully_shard_model(model, fsdp_unit_modules=[torch.nn.TransformerEncoderLayer])
