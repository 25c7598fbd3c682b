from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data_utils import TextMelCollate, TextMelLoader


def prepare_dataloaders(hparams):
    trainset = TextMelLoader(hparams.training_files, hparams)
    valset = TextMelLoader(hparams.validation_files, hparams)
    collate_fn = TextMelCollate(hparams.n_frames_per_step)
    train_sampler = DistributedSampler(trainset) if hparams.distributed_run else None
    train_loader = DataLoader(trainset, num_workers=1, shuffle=True,  # expect: TCK801
                              sampler=train_sampler,
                              batch_size=hparams.batch_size, pin_memory=False,
                              drop_last=True, collate_fn=collate_fn)
    return train_loader, valset, collate_fn
