import matplotlib.pyplot as plot
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence
from torch.utils.data import DataLoader

from model.constants import *


def train(dataset, model, name):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"Using {device} device")

    train_size = int(TRAIN_VALIDATION_SPLIT * len(dataset))
    train_dataset, val_dataset = torch.utils.data.random_split(dataset, [train_size, len(dataset) - train_size])
    train_dataloader = DataLoader(train_dataset, batch_size=BATCH_SIZE, shuffle=True)
    val_dataloader = DataLoader(val_dataset, batch_size=BATCH_SIZE, shuffle=False)

    ce_loss = nn.CrossEntropyLoss(reduction="none")
    l1_loss = nn.L1Loss(reduction="mean")
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)

    epochs = []
    train_losses_chords, train_losses_melodies, train_losses_kl = [], [], []
    val_losses_chords, val_losses_melodies, val_losses_kl = [], [], []

    def compute_loss(data):
        """Losses for one batch: the total and its parts."""
        num_chords = data["num_chords"]
        max_num_chords = num_chords.max()
        max_num_notes = max_num_chords * NOTES_PER_CHORD
        chords_gt = data["chords"].to(device)[:, :max_num_chords]
        notes_gt = data["melody_notes"].to(device)[:, :max_num_notes]
        tempo_gt = data["tempo"].to(device)
        key_gt = data["key"].to(device)
        mode_gt = data["mode"].to(device)
        valence_gt = data["valence"].to(device)
        energy_gt = data["energy"].to(device)

        if name == "lyrics2lofi":
            packed = pack_padded_sequence(data["embedding"].to(device), data["embedding_length"],
                                          batch_first=True, enforce_sorted=False)
            outputs = model(packed, max_num_chords, sampling_rate_chords, sampling_rate_melodies,
                            chords_gt, notes_gt)
        else:
            outputs = model(chords_gt, notes_gt, tempo_gt, key_gt, mode_gt, valence_gt, energy_gt,
                            num_chords, max_num_chords, sampling_rate_chords, sampling_rate_melodies)
        pred_chords, pred_notes, pred_tempo, pred_key, pred_mode, pred_valence, pred_energy, kl = outputs

        def length_mask(max_length, lengths):
            positions = torch.arange(max_length, device=device).repeat((chords_gt.shape[0], 1))
            return positions <= lengths.to(device)[:, None]

        mask_chord = length_mask(max_num_chords, num_chords)
        loss_chords = torch.masked_select(ce_loss(pred_chords.permute(0, 2, 1), chords_gt), mask_chord).mean()
        mask_melody = length_mask(max_num_notes, num_chords * NOTES_PER_CHORD)
        loss_melody = torch.masked_select(ce_loss(pred_notes.permute(0, 2, 1), notes_gt), mask_melody).mean()
        if epoch < MELODY_EPOCH_DELAY:
            loss_melody = 0

        loss_kl = kl
        loss_tempo = l1_loss(pred_tempo[:, 0], tempo_gt) / 5
        loss_key = ce_loss(pred_key, key_gt).mean() / 30
        loss_mode = ce_loss(pred_mode, mode_gt).mean() / 10
        loss_valence = l1_loss(pred_valence[:, 0], valence_gt) / 5
        loss_energy = l1_loss(pred_energy[:, 0], energy_gt) / 5
        loss_total = (loss_chords + loss_kl + loss_melody + loss_tempo + loss_key + loss_mode
                      + loss_energy + loss_valence)

        tp_chords = torch.masked_select(pred_chords.argmax(dim=2) == chords_gt, mask_chord).tolist()
        tp_melodies = torch.masked_select(pred_notes.argmax(dim=2) == notes_gt, mask_melody).tolist()
        return loss_total, loss_chords, loss_kl, loss_melody, tp_chords, tp_melodies

    print(f"Starting training: {name}")
    epoch = 0
    while True:
        epochs.append(epoch)
        print(f"== Epoch {epoch} ==")
        ep_train_losses_chords, ep_train_losses_melodies, ep_train_losses_kl = [], [], []
        ep_train_tp_chords, ep_train_tp_melodies = [], []
        ep_val_losses_chords, ep_val_losses_melodies, ep_val_losses_kl = [], [], []
        ep_val_tp_chords, ep_val_tp_melodies = [], []

        sampling_rate_chords = sampling_rate_melodies = 0
        if TEACHER_FORCE:
            sampling_rate_chords = sampling_rate_at_epoch(epoch)
            sampling_rate_melodies = sampling_rate_at_epoch(epoch - MELODY_EPOCH_DELAY)

        # training
        model.train()
        for batch, data in enumerate(train_dataloader):
            loss, loss_chords, kl_loss, loss_melody, batch_tp_chords, batch_tp_melodies = compute_loss(data)

            ep_train_losses_chords.append(loss_chords.item())
            ep_train_losses_melodies.append(float(loss_melody))
            ep_train_losses_kl.append(kl_loss.item())
            ep_train_tp_chords.extend(batch_tp_chords)
            ep_train_tp_melodies.extend(batch_tp_melodies)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"\tBatch {batch}:\tLoss {loss.item():.3f} (C: {loss_chords:.3f} + KL: {kl_loss:.3f} + "
                  f"M: {loss_melody:.3f})")

        # validation
        model.eval()
        for batch, data in enumerate(val_dataloader):
            with torch.no_grad():
                loss, loss_chords, kl_loss, loss_melody, batch_tp_chords, batch_tp_melodies = compute_loss(data)
                ep_val_losses_chords.append(loss_chords)
                ep_val_losses_melodies.append(loss_melody)
                ep_val_losses_kl.append(kl_loss)
                ep_val_tp_chords.extend(batch_tp_chords)
                ep_val_tp_melodies.extend(batch_tp_melodies)

        torch.save(model.state_dict(), f"{name}-epoch{epoch}.pth" if epoch % 10 == 0 else f"{name}.pth")
        epoch += 1

        train_losses_chords.append(sum(ep_train_losses_chords) / len(ep_train_losses_chords))
        train_losses_melodies.append(sum(ep_train_losses_melodies) / len(ep_train_losses_melodies))
        train_losses_kl.append(sum(ep_train_losses_kl) / len(ep_train_losses_kl))
        val_losses_chords.append(sum(ep_val_losses_chords) / len(ep_val_losses_chords))
        val_losses_melodies.append(sum(ep_val_losses_melodies) / len(ep_val_losses_melodies))
        val_losses_kl.append(sum(ep_val_losses_kl) / len(ep_val_losses_kl))
        print(f"Epoch chord loss: {train_losses_chords[-1]:.3f}, melody loss: {train_losses_melodies[-1]:.3f}, "
              f"KL: {train_losses_kl[-1]:.3f}, chord accuracy: "
              f"{100 * sum(ep_train_tp_chords) / len(ep_train_tp_chords):.3f}")

        fig, axs = plot.subplots(1, 2, figsize=(8, 4.5), dpi=200)
        axs[0].set_title("Chords loss")
        axs[0].plot(epochs, train_losses_chords, label="Train", color="royalblue")
        axs[0].plot(epochs, val_losses_chords, label="Val", color="royalblue", linestyle="dotted")
        axs[1].set_title("Melody loss")
        axs[1].plot(epochs, train_losses_melodies, label="Train", color="royalblue")
        axs[1].plot(epochs, val_losses_melodies, label="Val", color="royalblue", linestyle="dotted")
        for ax in axs:
            ax.set_xlabel("Epochs")
            ax.legend()
            ax.grid(True)
        plot.tight_layout()
        plot.savefig(f"{name}.png")
        plot.close(fig)
