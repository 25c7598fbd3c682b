import torch


def sample_to_cuda(batch):
    return {k: v.cuda() if torch.is_tensor(v) else v for k, v in batch.items()}


class BaseTrainer:
    def __init__(self, min_epochs=0, max_epochs=50):
        self.min_epochs = min_epochs
        self.max_epochs = max_epochs

    def train(self, dataloader, module, optimizer):
        module.train()
        outputs = []
        for i, batch in enumerate(dataloader):
            optimizer.zero_grad()
            batch = sample_to_cuda(batch)
            output = module.training_step(batch, i)
            output["loss"].backward()
            optimizer.step()
            output["loss"] = output["loss"].detach()
            outputs.append(output)
        return module.training_epoch_end(outputs)

    def fit(self, module, dataloader, optimizer):
        for epoch in range(self.min_epochs, self.max_epochs):
            self.train(dataloader, module, optimizer)
