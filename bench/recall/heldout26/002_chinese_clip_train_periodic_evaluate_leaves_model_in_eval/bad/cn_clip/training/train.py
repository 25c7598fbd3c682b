import logging
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.cuda.amp import autocast


def is_master(args):
    return args.rank == 0


def get_loss(model, images, texts, loss_img, loss_txt, args):
    image_features, text_features, logit_scale = model(images, texts)
    logit_scale = logit_scale.mean()
    if args.aggregate:
        world_size = dist.get_world_size()
        rank = dist.get_rank()
        gathered_image = [torch.zeros_like(image_features) for _ in range(world_size)]
        gathered_text = [torch.zeros_like(text_features) for _ in range(world_size)]
        dist.all_gather(gathered_image, image_features)
        dist.all_gather(gathered_text, text_features)
        # keep the local features first so their gradients flow back
        all_image = torch.cat([image_features] + gathered_image[:rank] + gathered_image[rank + 1:])
        all_text = torch.cat([text_features] + gathered_text[:rank] + gathered_text[rank + 1:])
        logits_per_image = logit_scale * all_image @ all_text.t()
        logits_per_text = logits_per_image.t()
    else:
        logits_per_image = logit_scale * image_features @ text_features.t()
        logits_per_text = logit_scale * text_features @ image_features.t()

    ground_truth = torch.arange(len(logits_per_image)).long().cuda(args.local_device_rank, non_blocking=True)
    total_loss = (loss_img(logits_per_image, ground_truth) + loss_txt(logits_per_text, ground_truth)) / 2

    acc = None
    if args.report_training_batch_acc:
        i2t_acc = (logits_per_image.argmax(-1) == ground_truth).sum() / len(logits_per_image)
        t2i_acc = (logits_per_text.argmax(-1) == ground_truth).sum() / len(logits_per_text)
        acc = {"i2t": i2t_acc, "t2i": t2i_acc}
    return total_loss, acc


def train(model, data, epoch, optimizer, scaler, scheduler, args, global_trained_steps):
    model.train()
    if args.freeze_vision and args.vision_model in ["RN50"]:
        # keep the frozen ResNet's batch-norm statistics fixed
        visual = model.module.visual if isinstance(model, nn.parallel.DistributedDataParallel) else model.visual
        for m in visual.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()

    dataloader, sampler = data["train"].dataloader, data["train"].sampler
    loss_img = nn.CrossEntropyLoss().cuda(args.local_device_rank)
    loss_txt = nn.CrossEntropyLoss().cuda(args.local_device_rank)
    if sampler is not None:
        sampler.set_epoch(epoch)

    num_batches_per_epoch = dataloader.num_batches
    data_iter = iter(dataloader)
    end = time.time()
    epoch_trained_steps = 0
    for i in range(global_trained_steps - num_batches_per_epoch * epoch, num_batches_per_epoch):
        batch = next(data_iter)
        step = num_batches_per_epoch * epoch + i
        if step >= args.max_steps:
            logging.info("Stopping training due to step %d has reached max_steps %d", step, args.max_steps)
            return epoch_trained_steps
        scheduler(step)

        optimizer.zero_grad()
        images, texts, eos_indices = batch
        images = images.cuda(args.local_device_rank, non_blocking=True)
        texts = texts.cuda(args.local_device_rank, non_blocking=True)
        data_time = time.time() - end
        m = model.module

        if args.precision == "amp":
            with autocast():
                total_loss, acc = get_loss(model, images, texts, loss_img, loss_txt, args)
                scaler.scale(total_loss).backward()
                scaler.step(optimizer)
            scaler.update()
        else:
            total_loss, acc = get_loss(model, images, texts, loss_img, loss_txt, args)
            total_loss.backward()
            optimizer.step()

        # clamp the temperature to ln(100) as in the CLIP paper
        m.logit_scale.data = torch.clamp(m.logit_scale.data, 0, 4.6052)

        batch_time = time.time() - end
        end = time.time()
        epoch_trained_steps += 1

        if is_master(args) and (step + 1) % args.log_interval == 0:
            logging.info(
                f"Global Steps: {step + 1}/{args.max_steps} | Train Epoch: {epoch + 1} | "
                f"Loss: {total_loss.item():.6f} | Data Time: {data_time:.3f}s | Batch Time: {batch_time:.3f}s | "
                f"LR: {optimizer.param_groups[0]['lr']:5f} | logit_scale: {m.logit_scale.data:.3f}"
            )

        if args.val_data is not None and args.valid_step_interval is not None \
                and (step + 1) % args.valid_step_interval == 0:
            assert "val" in data, "Error: Valid dataset has not been built."
            evaluate(model, data, epoch, args, step + 1)  # expect: TCK106

        if args.should_save and args.save_step_frequency > 0 and (step + 1) % args.save_step_frequency == 0:
            save_path = os.path.join(args.checkpoint_path, f"epoch_{epoch + 1}_{step + 1}.pt")
            torch.save({"epoch": epoch + 1, "step": step + 1, "name": args.name,
                        "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}, save_path)
            logging.info("Saved checkpoint %s", save_path)

    return epoch_trained_steps


def evaluate(model, data, epoch, args, steps):
    logging.info("Begin to eval on validation set (epoch %d @ %d steps)...", epoch + 1, steps)
    model.eval()

    dataloader = data["val"].dataloader
    data_iter = iter(dataloader)
    loss_img = nn.CrossEntropyLoss().cuda(args.local_device_rank)
    loss_txt = nn.CrossEntropyLoss().cuda(args.local_device_rank)

    cumulative_loss = torch.zeros([]).cuda(args.local_device_rank, non_blocking=True)
    cumulative_i2t_acc = torch.zeros([]).cuda(args.local_device_rank, non_blocking=True)
    cumulative_t2i_acc = torch.zeros([]).cuda(args.local_device_rank, non_blocking=True)
    num_elements = torch.zeros([]).cuda(args.local_device_rank, non_blocking=True)
    with torch.no_grad():
        for i in range(dataloader.num_batches):
            images, texts, eos_indices = next(data_iter)
            images = images.cuda(args.local_device_rank, non_blocking=True)
            texts = texts.cuda(args.local_device_rank, non_blocking=True)

            image_features, text_features, logit_scale = model(images, texts)
            logit_scale = logit_scale.mean()
            logits_per_image = logit_scale * image_features @ text_features.t()
            logits_per_text = logits_per_image.t()

            ground_truth = torch.arange(len(images)).long().cuda(args.local_device_rank, non_blocking=True)
            total_loss = (loss_img(logits_per_image, ground_truth) + loss_txt(logits_per_text, ground_truth)) / 2

            batch_size = len(images)
            cumulative_loss += total_loss * batch_size
            num_elements += batch_size
            cumulative_i2t_acc += (logits_per_image.argmax(-1) == ground_truth).sum().float()
            cumulative_t2i_acc += (logits_per_text.argmax(-1) == ground_truth).sum().float()

        dist.all_reduce(cumulative_loss, op=dist.ReduceOp.SUM)
        dist.all_reduce(cumulative_i2t_acc, op=dist.ReduceOp.SUM)
        dist.all_reduce(cumulative_t2i_acc, op=dist.ReduceOp.SUM)
        dist.all_reduce(num_elements, op=dist.ReduceOp.SUM)
        loss = cumulative_loss / num_elements
        i2t_acc = cumulative_i2t_acc / num_elements
        t2i_acc = cumulative_t2i_acc / num_elements

        logging.info(
            f"Validation Result (epoch {epoch + 1} @ {steps} steps) | Valid Loss: {loss.item():.6f} | "
            f"Image2Text Acc: {i2t_acc.item() * 100:.2f} | Text2Image Acc: {t2i_acc.item() * 100:.2f}"
        )
