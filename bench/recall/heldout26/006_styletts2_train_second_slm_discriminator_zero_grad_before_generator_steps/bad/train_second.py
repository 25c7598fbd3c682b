# Second training stage: style diffusion + SLM adversarial training on top of the first-stage acoustic model.
import time

import click
import numpy as np
import torch
import torch.nn.functional as F
import yaml
from munch import Munch
from torch.utils.tensorboard import SummaryWriter

from losses import DiscriminatorLoss, GeneratorLoss, MultiResolutionSTFTLoss, WavLMLoss
from meldataset import build_dataloader
from models import build_model, load_checkpoint
from Modules.slmadv import SLMAdversarialLoss
from optimizers import build_optimizer
from utils import length_to_mask, log_norm


@click.command()
@click.option("-p", "--config_path", default="Configs/config.yml", type=str)
def main(config_path):
    config = yaml.safe_load(open(config_path))
    device = "cuda"
    epochs = config.get("epochs_2nd", 200)
    batch_size = config.get("batch_size", 10)
    log_interval = config.get("log_interval", 10)
    diff_epoch = config["loss_params"]["diff_epoch"]
    joint_epoch = config["loss_params"]["joint_epoch"]
    loss_params = Munch(config["loss_params"])
    writer = SummaryWriter(config["log_dir"] + "/tensorboard")

    train_dataloader = build_dataloader(config["data_params"]["train_data"], batch_size=batch_size, device=device)
    model = build_model(Munch(config["model_params"]))
    _ = [model[key].to(device) for key in model]

    scheduler_params = {"max_lr": config["optimizer_params"]["lr"], "pct_start": 0.0, "epochs": epochs,
                        "steps_per_epoch": len(train_dataloader)}
    optimizer = build_optimizer({key: model[key].parameters() for key in model},
                                scheduler_params_dict={key: scheduler_params.copy() for key in model},
                                lr=config["optimizer_params"]["lr"])
    start_epoch, iters = 0, 0
    if config.get("pretrained_model"):
        model, optimizer, start_epoch, iters = load_checkpoint(model, optimizer, config["pretrained_model"])

    stft_loss = MultiResolutionSTFTLoss().to(device)
    gl = GeneratorLoss(model.mpd, model.msd).to(device)
    dl = DiscriminatorLoss(model.mpd, model.msd).to(device)
    wl = WavLMLoss(config["slm"]["model"], model.wd, 24000, config["slm"]["sr"]).to(device)
    slmadv_params = Munch(config["slmadv_params"])
    slmadv = SLMAdversarialLoss(model, wl, None, slmadv_params.min_len, slmadv_params.max_len,
                                batch_percentage=slmadv_params.batch_percentage,
                                skip_update=slmadv_params.iter, sig=slmadv_params.sig)

    start_ds = False
    for epoch in range(start_epoch, epochs):
        running_loss = 0
        start_time = time.time()
        _ = [model[key].eval() for key in model]
        model.predictor.train()
        model.bert_encoder.train()
        model.bert.train()
        model.msd.train()
        model.mpd.train()
        if epoch >= diff_epoch:
            start_ds = True

        for i, batch in enumerate(train_dataloader):
            waves = batch[0]
            texts, input_lengths, ref_texts, ref_lengths, mels, mel_input_length, ref_mels = \
                [b.to(device) for b in batch[1:]]

            # acoustic targets from the frozen first-stage networks
            with torch.no_grad():
                mel_mask = length_to_mask(mel_input_length).to(device)
                en, p_en, s, s_dur, gt = model.text_aligner.align(texts, input_lengths, mels, mel_mask)
                F0_real, _, _ = model.pitch_extractor(gt.unsqueeze(1))
                N_real = log_norm(gt.unsqueeze(1)).squeeze(1)
                y_rec_gt = waves.unsqueeze(1).to(device)
                y_rec_gt_pred = model.decoder(en, F0_real, N_real, s)
                wav = y_rec_gt if epoch >= joint_epoch else y_rec_gt_pred

            F0_fake, N_fake = model.predictor.F0Ntrain(p_en, s_dur)
            y_rec = model.decoder(en, F0_fake, N_fake, s)
            loss_F0_rec = F.smooth_l1_loss(F0_real, F0_fake) / 10
            loss_norm_rec = F.smooth_l1_loss(N_real, N_fake)

            # discriminator
            if start_ds:
                optimizer.zero_grad()
                d_loss = dl(wav.detach(), y_rec.detach()).mean()
                d_loss.backward()
                optimizer.step("msd")
                optimizer.step("mpd")
            else:
                d_loss = 0

            # generator
            optimizer.zero_grad()
            loss_mel = stft_loss(y_rec, wav)
            loss_gen_all = gl(wav, y_rec).mean() if start_ds else 0
            loss_lm = wl(wav.detach().squeeze(), y_rec.squeeze()).mean()
            g_loss = loss_params.lambda_mel * loss_mel + loss_params.lambda_F0 * loss_F0_rec + \
                loss_params.lambda_norm * loss_norm_rec + loss_params.lambda_gen * loss_gen_all + \
                loss_params.lambda_slm * loss_lm
            running_loss += loss_mel.item()
            g_loss.backward()

            optimizer.step("bert_encoder")
            optimizer.step("bert")
            optimizer.step("predictor")
            optimizer.step("predictor_encoder")
            if epoch >= diff_epoch:
                optimizer.step("diffusion")

            if epoch >= joint_epoch:
                optimizer.step("style_encoder")
                optimizer.step("decoder")

                use_ind = np.random.rand() < 0.5
                if use_ind:
                    ref_lengths = input_lengths
                    ref_texts = texts
                slm_out = slmadv(i, y_rec_gt, y_rec_gt_pred, waves, mel_input_length,
                                 ref_texts, ref_lengths, use_ind, s.detach(), None)
                if slm_out is None:
                    continue
                d_loss_slm, loss_gen_lm, y_pred = slm_out

                # SLM generator loss
                optimizer.zero_grad()
                loss_gen_lm.backward()

                # SLM discriminator loss
                if d_loss_slm != 0:
                    optimizer.zero_grad()  # expect: TCK103
                    d_loss_slm.backward(retain_graph=True)
                    optimizer.step("wd")

                # per-module gradient norms, then rescale the SLM gradients
                total_norm = {}
                for key in model.keys():
                    params = [p for p in model[key].parameters() if p.grad is not None and p.requires_grad]
                    total_norm[key] = sum(p.grad.detach().data.norm(2).item() ** 2 for p in params) ** 0.5
                if total_norm["predictor"] > slmadv_params.thresh:
                    for key in model.keys():
                        for p in model[key].parameters():
                            if p.grad is not None:
                                p.grad *= 1 / total_norm["predictor"]
                for p in model.predictor.duration_proj.parameters():
                    if p.grad is not None:
                        p.grad *= slmadv_params.scale
                for p in model.diffusion.parameters():
                    if p.grad is not None:
                        p.grad *= slmadv_params.scale

                optimizer.step("bert_encoder")
                optimizer.step("bert")
                optimizer.step("predictor")
                optimizer.step("diffusion")
            else:
                d_loss_slm, loss_gen_lm = 0, 0

            iters = iters + 1
            if (i + 1) % log_interval == 0:
                print("Epoch [%d/%d], Step [%d], Mel Loss: %.5f, Disc Loss: %.5f, DiscLM Loss: %.5f, GenLM Loss: %.5f"
                      % (epoch + 1, epochs, i + 1, running_loss / log_interval, d_loss, d_loss_slm, loss_gen_lm))
                writer.add_scalar("train/mel_loss", running_loss / log_interval, iters)
                running_loss = 0
                print("Time elapsed:", time.time() - start_time)


if __name__ == "__main__":
    main()
