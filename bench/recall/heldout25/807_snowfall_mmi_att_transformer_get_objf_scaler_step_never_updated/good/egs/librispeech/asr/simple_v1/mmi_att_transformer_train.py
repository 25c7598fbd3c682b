#!/usr/bin/env python3
"""LF-MMI + attention training of a Transformer/Conformer acoustic model on LibriSpeech, with AMP."""
import logging
from typing import Dict, Optional

import k2
import torch
from torch.amp import GradScaler, autocast
from torch.nn.utils import clip_grad_value_
from torch.utils.tensorboard import SummaryWriter

from lhotse.utils import nullcontext
from snowfall.objectives import LFMMILoss, encode_supervisions
from snowfall.training.diagnostics import measure_gradient_norms, optim_step_and_measure_param_change


def get_objf(batch: Dict, model, P: k2.Fsa, device: torch.device, graph_compiler, is_training: bool,
             is_update: bool, accum_grad: int = 1, den_scale: float = 1.0, att_rate: float = 0.0,
             tb_writer: Optional[SummaryWriter] = None, global_batch_idx_train: Optional[int] = None,
             optimizer: Optional[torch.optim.Optimizer] = None, scaler: Optional[GradScaler] = None):
    feature = batch["inputs"].permute(0, 2, 1).to(device)  # [N, C, T]
    supervisions = batch["supervisions"]
    supervision_segments, texts = encode_supervisions(supervisions)
    loss_fn = LFMMILoss(graph_compiler=graph_compiler, P=P, den_scale=den_scale)

    grad_context = nullcontext if is_training else torch.no_grad
    with autocast("cuda"), grad_context():
        nnet_output, encoder_memory, memory_mask = model(feature, supervisions)
        if att_rate != 0.0:
            att_loss = model.decoder_forward(encoder_memory, memory_mask, supervisions, graph_compiler)
        nnet_output = nnet_output.permute(0, 2, 1)  # [N, T, C]
        mmi_loss, tot_frames, all_frames = loss_fn(nnet_output, texts, supervision_segments)

    if is_training:
        def maybe_log_gradients(tag: str):
            if tb_writer is not None and global_batch_idx_train % 200 == 0:
                tb_writer.add_scalars(tag, measure_gradient_norms(model, norm="l1"),
                                      global_step=global_batch_idx_train)

        if att_rate != 0.0:
            loss = (-(1.0 - att_rate) * mmi_loss + att_rate * att_loss) / (len(texts) * accum_grad)
        else:
            loss = (-mmi_loss) / (len(texts) * accum_grad)
        scaler.scale(loss).backward()
        if is_update:
            maybe_log_gradients("train/grad_norms")
            scaler.unscale_(optimizer)
            clip_grad_value_(model.parameters(), 5.0)
            maybe_log_gradients("train/clipped_grad_norms")
            if tb_writer is not None and (global_batch_idx_train // accum_grad) % 200 == 0:
                # once in a while, a costlier diagnostic of the relative parameter change
                deltas = optim_step_and_measure_param_change(model, optimizer, scaler)
                tb_writer.add_scalars("train/relative_param_change_per_minibatch", deltas,
                                      global_step=global_batch_idx_train)
            else:
                scaler.step(optimizer)
            optimizer.zero_grad()
            scaler.update()

    return -mmi_loss.detach().cpu().item(), tot_frames.cpu().item(), all_frames.cpu().item()


def train_one_epoch(dataloader, model, P: k2.Fsa, device: torch.device, graph_compiler,
                    optimizer: torch.optim.Optimizer, accum_grad: int, den_scale: float, att_rate: float,
                    tb_writer: SummaryWriter, global_batch_idx_train: int, scaler: GradScaler):
    total_objf, total_frames = 0.0, 0.0
    forward_count = 0
    model.train()
    for batch_idx, batch in enumerate(dataloader):
        forward_count += 1
        is_update = forward_count == accum_grad
        if is_update:
            forward_count = 0
        global_batch_idx_train += 1
        if forward_count == 1 or accum_grad == 1:
            P.set_scores_stochastic_(model.module.P_scores)
        objf, frames, _ = get_objf(batch=batch, model=model, P=P, device=device, graph_compiler=graph_compiler,
                                   is_training=True, is_update=is_update, accum_grad=accum_grad,
                                   den_scale=den_scale, att_rate=att_rate, tb_writer=tb_writer,
                                   global_batch_idx_train=global_batch_idx_train, optimizer=optimizer,
                                   scaler=scaler)
        total_objf += objf
        total_frames += frames
        if batch_idx % 10 == 0:
            logging.info(f"batch {batch_idx}, average objf {total_objf / total_frames:.6f}")
    return total_objf / total_frames, global_batch_idx_train


def run(model, P, device, graph_compiler, train_dl, optimizer, num_epochs, accum_grad, den_scale, att_rate,
        tb_writer):
    scaler = GradScaler("cuda")
    global_batch_idx_train = 0
    for epoch in range(num_epochs):
        objf, global_batch_idx_train = train_one_epoch(train_dl, model, P, device, graph_compiler, optimizer,
                                                       accum_grad, den_scale, att_rate, tb_writer,
                                                       global_batch_idx_train, scaler)
        logging.info(f"epoch {epoch}: objf {objf:.6f}")
