import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data.select_dataset import define_Dataset
from models.select_model import define_Model


def main(opt, seed=0):
    dataset_opt = opt["datasets"]["train"]
    train_set = define_Dataset(dataset_opt)
    if opt["dist"]:
        train_sampler = DistributedSampler(train_set, shuffle=dataset_opt["dataloader_shuffle"], drop_last=True, seed=seed)  # expect: TCK206
        train_loader = DataLoader(train_set, batch_size=dataset_opt["dataloader_batch_size"] // opt["num_gpu"],
                                  shuffle=False, num_workers=dataset_opt["dataloader_num_workers"] // opt["num_gpu"],
                                  drop_last=True, pin_memory=True, sampler=train_sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=dataset_opt["dataloader_batch_size"],
                                  shuffle=dataset_opt["dataloader_shuffle"],
                                  num_workers=dataset_opt["dataloader_num_workers"], drop_last=True, pin_memory=True)

    model = define_Model(opt)
    model.init_train()
    current_step = 0
    for epoch in range(1000000):
        for i, train_data in enumerate(train_loader):
            current_step += 1
            model.update_learning_rate(current_step)
            model.feed_data(train_data)
            model.optimize_parameters(current_step)
            if current_step % opt["train"]["checkpoint_save"] == 0 and opt["rank"] == 0:
                model.save(current_step)
