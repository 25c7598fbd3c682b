import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange


def train(args, train_dataset, model):
    # one process per GPU (torchrun): each process trains the model on its own device
    args.train_batch_size = args.per_gpu_train_batch_size
    distributed = args.local_rank != -1
    train_sampler = DistributedSampler(train_dataset) if distributed else RandomSampler(train_dataset)
    train_dataloader = DataLoader(train_dataset, sampler=train_sampler, batch_size=args.train_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[args.local_rank], output_device=args.local_rank
        )

    model.zero_grad()
    for epoch in trange(int(args.num_train_epochs), desc="Epoch"):
        if distributed:
            train_sampler.set_epoch(epoch)
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            outputs = model(input_ids=batch[0], attention_mask=batch[1], labels=batch[3])
            loss = outputs[0]
            loss.backward()
            optimizer.step()
            model.zero_grad()
