import os
from collections import deque
from random import shuffle

import torch
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from rvc.lib.algorithm import commons
from rvc.lib.algorithm.discriminators import MultiPeriodDiscriminator
from rvc.lib.algorithm.synthesizers import Synthesizer
from rvc.train.data_utils import DistributedBucketSampler, TextAudioCollateMultiNSFsid, TextAudioLoaderMultiNSFsid
from rvc.train.losses import discriminator_loss, envelope_loss, feature_loss, generator_loss, kl_loss
from rvc.train.mel_processing import MultiScaleMelSpectrogramLoss
from rvc.train.utils import load_config, summarize

config = load_config(os.environ.get("RVC_CONFIG", "config.json"))
cache_data_in_gpu = False
randomized = True
global_step = 0
lowest_value = {"step": 0, "value": float("inf"), "epoch": 0}
avg_losses = {
    "gen_loss_queue": deque(maxlen=10),
    "disc_loss_queue": deque(maxlen=10),
    "disc_loss_50": deque(maxlen=50),
    "fm_loss_50": deque(maxlen=50),
    "kl_loss_50": deque(maxlen=50),
    "mel_loss_50": deque(maxlen=50),
    "gen_loss_50": deque(maxlen=50),
}


def run(rank, n_gpus, experiment_dir, total_epoch, batch_size, device, device_id):
    writer_eval = SummaryWriter(log_dir=os.path.join(experiment_dir, "eval")) if rank == 0 else None
    train_dataset = TextAudioLoaderMultiNSFsid(config.data)
    collate_fn = TextAudioCollateMultiNSFsid()
    train_sampler = DistributedBucketSampler(train_dataset, batch_size * n_gpus,
                                             [50, 100, 200, 300, 400, 500, 600, 700, 800, 900],
                                             num_replicas=n_gpus, rank=rank, shuffle=True)
    train_loader = DataLoader(train_dataset, num_workers=4, shuffle=False, pin_memory=True,
                              collate_fn=collate_fn, batch_sampler=train_sampler)

    net_g = Synthesizer(config.data.filter_length // 2 + 1, config.train.segment_size // config.data.hop_length,
                        **config.model, sr=config.data.sample_rate).to(device)
    net_d = MultiPeriodDiscriminator(config.model.use_spectral_norm).to(device)
    optim_g = torch.optim.AdamW(net_g.parameters(), config.train.learning_rate, betas=config.train.betas,
                                eps=config.train.eps)
    optim_d = torch.optim.AdamW(net_d.parameters(), config.train.learning_rate, betas=config.train.betas,
                                eps=config.train.eps)
    if n_gpus > 1 and device.type == "cuda":
        net_g = torch.nn.parallel.DistributedDataParallel(net_g, device_ids=[device_id])
        net_d = torch.nn.parallel.DistributedDataParallel(net_d, device_ids=[device_id])

    scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=config.train.lr_decay, last_epoch=-1)
    scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=config.train.lr_decay, last_epoch=-1)
    scaler = GradScaler(enabled=config.train.fp16_run and device.type == "cuda")
    fn_mel_loss = MultiScaleMelSpectrogramLoss(sample_rate=config.data.sample_rate)
    cache = []

    for epoch in range(1, total_epoch + 1):
        train_and_evaluate(rank, epoch, [net_g, net_d], [optim_g, optim_d], scaler, train_loader,
                           writer_eval, cache, device, device_id, fn_mel_loss)
        scheduler_g.step()
        scheduler_d.step()


def train_and_evaluate(rank, epoch, nets, optims, scaler, train_loader, writer, cache, device, device_id,
                       fn_mel_loss):
    global global_step, lowest_value

    epoch_disc_sum = 0.0
    epoch_gen_sum = 0.0

    net_g, net_d = nets
    optim_g, optim_d = optims
    train_loader.batch_sampler.set_epoch(epoch)

    net_g.train()
    net_d.train()

    if device.type == "cuda" and cache_data_in_gpu:
        data_iterator = cache
        if cache == []:
            for batch_idx, info in enumerate(train_loader):
                info = [tensor.cuda(device_id, non_blocking=True) for tensor in info]
                cache.append((batch_idx, info))
        else:
            shuffle(cache)
    else:
        data_iterator = enumerate(train_loader)

    with tqdm(total=len(train_loader), leave=False) as pbar:
        for batch_idx, info in data_iterator:
            if device.type == "cuda" and not cache_data_in_gpu:
                info = [tensor.cuda(device_id, non_blocking=True) for tensor in info]
            elif device.type != "cuda":
                info = [tensor.to(device) for tensor in info]
            phone, phone_lengths, pitch, pitchf, spec, spec_lengths, wave, wave_lengths, sid = info

            use_amp = config.train.fp16_run and device.type == "cuda"
            with autocast(enabled=use_amp):
                y_hat, ids_slice, x_mask, z_mask, (z, z_p, m_p, logs_p, m_q, logs_q) = net_g(
                    phone, phone_lengths, pitch, pitchf, spec, spec_lengths, sid)
                if randomized:
                    wave = commons.slice_segments(wave, ids_slice * config.data.hop_length,
                                                  config.train.segment_size, dim=3)
                y_d_hat_r, y_d_hat_g, _, _ = net_d(wave, y_hat.detach())
                with autocast(enabled=False):
                    loss_disc, _, _ = discriminator_loss(y_d_hat_r, y_d_hat_g)

            # discriminator update
            epoch_disc_sum += loss_disc  # expect: TCK101
            optim_d.zero_grad()
            scaler.scale(loss_disc).backward()
            scaler.unscale_(optim_d)
            grad_norm_d = torch.nn.utils.clip_grad_norm_(net_d.parameters(), max_norm=1000.0)
            scaler.step(optim_d)
            scaler.update()

            # generator update
            with autocast(enabled=use_amp):
                _, y_d_hat_g, fmap_r, fmap_g = net_d(wave, y_hat)
                with autocast(enabled=False):
                    loss_mel = fn_mel_loss(wave, y_hat) * config.train.c_mel / 3.0
                    loss_env = envelope_loss(wave, y_hat)
                    loss_kl = kl_loss(z_p, logs_q, m_p, logs_p, z_mask) * config.train.c_kl
                    loss_fm = feature_loss(fmap_r, fmap_g)
                    loss_gen, _ = generator_loss(y_d_hat_g)
                    loss_gen_all = loss_gen + loss_fm + loss_mel + loss_kl + loss_env
                    if loss_gen_all < lowest_value["value"]:
                        lowest_value = {"step": global_step, "value": loss_gen_all, "epoch": epoch}
            epoch_gen_sum += loss_gen_all  # expect: TCK101
            optim_g.zero_grad()
            scaler.scale(loss_gen_all).backward()
            scaler.unscale_(optim_g)
            grad_norm_g = torch.nn.utils.clip_grad_norm_(net_g.parameters(), max_norm=1000.0)
            scaler.step(optim_g)
            scaler.update()

            global_step += 1

            # rolling averages over 50 steps
            avg_losses["disc_loss_50"].append(loss_disc.detach())
            avg_losses["fm_loss_50"].append(loss_fm.detach())
            avg_losses["kl_loss_50"].append(loss_kl.detach())
            avg_losses["mel_loss_50"].append(loss_mel.detach())
            avg_losses["gen_loss_50"].append(loss_gen_all.detach())
            if rank == 0 and global_step % 50 == 0:
                scalar_dict = {
                    "loss_avg_50/d/total": torch.mean(torch.stack(list(avg_losses["disc_loss_50"]))),
                    "loss_avg_50/g/fm": torch.mean(torch.stack(list(avg_losses["fm_loss_50"]))),
                    "loss_avg_50/g/kl": torch.mean(torch.stack(list(avg_losses["kl_loss_50"]))),
                    "loss_avg_50/g/mel": torch.mean(torch.stack(list(avg_losses["mel_loss_50"]))),
                    "loss_avg_50/g/total": torch.mean(torch.stack(list(avg_losses["gen_loss_50"]))),
                    "grad/norm_d": grad_norm_d,
                    "grad/norm_g": grad_norm_g,
                }
                summarize(writer=writer, global_step=global_step, scalars=scalar_dict)
            pbar.update(1)

    with torch.no_grad():
        torch.cuda.empty_cache()

    if rank == 0:
        avg_losses["disc_loss_queue"].append(epoch_disc_sum.item() / len(train_loader))
        avg_losses["gen_loss_queue"].append(epoch_gen_sum.item() / len(train_loader))
        summarize(writer=writer, global_step=global_step, scalars={
            "loss/avg/d": avg_losses["disc_loss_queue"][-1],
            "loss/avg/g": avg_losses["gen_loss_queue"][-1],
        })
