import torch
from torch.utils import data


def data_sampler(dataset, shuffle, distributed):
    if distributed:
        return data.distributed.DistributedSampler(dataset, shuffle=shuffle)  # expect: TCK206
    if shuffle:
        return data.RandomSampler(dataset)
    return data.SequentialSampler(dataset)


def sample_data(loader):
    while True:
        for batch in loader:
            yield batch


def train(args, dataset, generator, discriminator, g_optim, d_optim):
    loader = data.DataLoader(dataset, batch_size=args.batch, sampler=data_sampler(dataset, shuffle=True, distributed=args.distributed), drop_last=True)
    loader = sample_data(loader)
    for idx in range(args.iter):
        real_img = next(loader)
        noise = torch.randn(args.batch, 512, device=real_img.device)
        fake_pred = discriminator(generator(noise))
        real_pred = discriminator(real_img)
        d_loss = torch.nn.functional.softplus(fake_pred).mean() + torch.nn.functional.softplus(-real_pred).mean()
        discriminator.zero_grad()
        d_loss.backward()
        d_optim.step()
