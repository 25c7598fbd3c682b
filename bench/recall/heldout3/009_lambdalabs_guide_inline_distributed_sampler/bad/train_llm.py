import torch
from torch import distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(args, model, train_data, collate_fn, local_rank):
    dist.init_process_group()
    model = DistributedDataParallel(model, device_ids=[local_rank])
    dataloader = DataLoader(
        train_data,
        batch_size=args.batch_size,
        collate_fn=collate_fn,
        num_workers=1,
        sampler=DistributedSampler(train_data, drop_last=True),  # expect: TCK206
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    state = {"epoch": 0, "global_step": 0}
    for state["epoch"] in range(state["epoch"], args.num_epochs):
        for batch in dataloader:
            batch = {k: v.to(local_rank) for k, v in batch.items()}
            outputs = model(**batch)
            outputs.loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            state["global_step"] += 1
