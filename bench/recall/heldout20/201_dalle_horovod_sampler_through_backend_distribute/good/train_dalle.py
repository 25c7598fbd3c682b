import argparse

import torch
from torch.nn.utils import clip_grad_norm_
from torch.optim import Adam
from torch.utils.data import DataLoader

import distributed_backends as distributed_utils
from dalle import DALLE
from text_image_data import TextImageDataset

parser = argparse.ArgumentParser()
parser.add_argument("--distributed_backend", default="Dummy")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--learning_rate", type=float, default=3e-4)
parser.add_argument("--clip_grad_norm", type=float, default=0.5)
args = parser.parse_args()

# initialize distributed backend

distr_backend = distributed_utils.set_backend_from_args(args)
distr_backend.initialize()


def save_model(path, model):
    if not distr_backend.is_root_worker():
        return
    torch.save({"weights": model.state_dict()}, path)


# create dataset and dataloader
# (Horovod needs a per-worker shard, so the dataset is not shuffled by the loader there)

is_shuffle = not distributed_utils.using_backend(distributed_utils.HorovodBackend)

ds = TextImageDataset(shuffle=is_shuffle)
assert len(ds) > 0, "dataset is empty"
if distr_backend.is_root_worker():
    print(f"{len(ds)} image-text pairs found for training")

if not is_shuffle:
    data_sampler = torch.utils.data.distributed.DistributedSampler(
        ds,
        num_replicas=distr_backend.get_world_size(),
        rank=distr_backend.get_rank(),
    )
else:
    data_sampler = None

dl = DataLoader(ds, batch_size=args.batch_size, shuffle=is_shuffle, drop_last=True, sampler=data_sampler)

dalle = DALLE().cuda()
opt = Adam(dalle.parameters(), lr=args.learning_rate)

# distribute

distr_backend.check_batch_size(args.batch_size)
(distr_dalle, distr_opt, distr_dl, distr_scheduler) = distr_backend.distribute(
    args=args,
    model=dalle,
    optimizer=opt,
    model_parameters=dalle.parameters(),
    training_data=dl,
)

# training

for epoch in range(args.epochs):
    if data_sampler:
        data_sampler.set_epoch(epoch)
    for i, (text, images) in enumerate(distr_dl):
        text, images = text.cuda(), images.cuda()

        loss = distr_dalle(text, images, return_loss=True)
        loss.backward()
        clip_grad_norm_(distr_dalle.parameters(), args.clip_grad_norm)
        distr_opt.step()
        distr_opt.zero_grad()

        if i % 10 == 0:
            avg_loss = distr_backend.average_all(loss)
            if distr_backend.is_root_worker():
                print(epoch, i, f"loss - {avg_loss.item()}")

        if i % 100 == 0:
            save_model("./dalle.pt", dalle)

save_model("./dalle-final.pt", dalle)
