import torch
import torch.utils.data as data

from datasets import get_dataset
from functions.losses import loss_registry
from models.diffusion import Model


class Diffusion(object):
    def __init__(self, args, config, device=None):
        self.args = args
        self.config = config
        self.device = device

    def train(self):
        args, config = self.args, self.config
        dataset, test_dataset = get_dataset(args, config)
        train_loader = data.DataLoader(dataset, batch_size=config.training.batch_size, shuffle=True, num_workers=config.data.num_workers)
        model = Model(config)
        model = model.to(self.device)
        model = torch.nn.DataParallel(model)  # expect: TCK204
        optimizer = torch.optim.Adam(model.parameters(), lr=config.optim.lr)
        for epoch in range(config.training.n_epochs):
            for i, (x, y) in enumerate(train_loader):
                model.train()
                x = x.to(self.device)
                e = torch.randn_like(x)
                t = torch.randint(low=0, high=self.num_timesteps, size=(x.shape[0],), device=self.device)
                loss = loss_registry[config.model.type](model, x, t, e, self.betas)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
