import os
import time

import sidechainnet as scn
import torch
import torch.nn.functional as F
from einops import rearrange
from sidechainnet.dataloaders.collate import prepare_dataloaders
from torch import nn
from torch.utils.tensorboard import SummaryWriter

import alphafold2_pytorch.constants as constants
from alphafold2_pytorch.transformer import Seq2SeqTransformer

# constants

NUM_EPOCHS = int(1e3)
IGNORE_INDEX = 21
THRESHOLD_LENGTH = 250
BATCH_SIZE = 100

# transformer constants

SRC_VOCAB_SIZE = 22  # amino acids + padding
TGT_VOCAB_SIZE = 3  # backbone torsion angles
NUM_ENCODER_LAYERS = 3
NUM_DECODER_LAYERS = 3
EMB_SIZE = 512
NUM_HEAD = 8
FFN_HID_DIM = 512

MODEL_PATH = f"model_{THRESHOLD_LENGTH}_{NUM_ENCODER_LAYERS}_{NUM_DECODER_LAYERS}_{FFN_HID_DIM}.pt"
DEVICE = constants.DEVICE


def filter_dictionary_by_seq_length(raw_data, seq_length_threshold, portion):
    """Keep only the entries of `portion` whose sequence is at most `seq_length_threshold` long."""
    keys = ["seq", "ang", "ids", "evo", "msk", "crd", "sec", "res"]
    split = raw_data[portion]
    kept = {key: [] for key in keys}
    dropped = 0
    for entry in zip(*[split[key] for key in keys]):
        record = dict(zip(keys, entry))
        if len(record["seq"]) > seq_length_threshold:
            dropped += 1
            continue
        record["ang"] = record["ang"][:, 0:3]
        for key in keys:
            kept[key].append(record[key])
    if dropped:
        total = dropped + len(kept["seq"])
        print(f"{portion}: kept {len(kept['seq'])} of {total} entries (length <= {seq_length_threshold})")
    raw_data[portion] = kept
    return raw_data


def create_mask(src, tgt):
    src_padding_mask = (src == IGNORE_INDEX).transpose(0, 1)
    tgt_padding_mask = (tgt == IGNORE_INDEX).transpose(0, 1)
    return src_padding_mask, tgt_padding_mask


def prepare_batch(batch):
    seq, coords, angs, mask = batch.seqs, batch.crds, batch.angs, batch.msks
    b, l, _ = seq.shape
    seq = seq.argmax(dim=-1).to(DEVICE)
    angs = angs.to(DEVICE)
    mask = mask.to(DEVICE).bool()
    seq = F.pad(seq, (0, THRESHOLD_LENGTH - l), value=IGNORE_INDEX)
    coords = rearrange(coords.to(DEVICE), "b (l c) d -> b l c d", l=l)
    angs = F.pad(angs, (0, 0, 0, THRESHOLD_LENGTH - l), value=0)
    mask = ~F.pad(mask, (0, THRESHOLD_LENGTH - l, 0, THRESHOLD_LENGTH - l), value=False)
    return seq, coords, angs, mask


def train_epoch(model, train_iter, optimizer):
    model.train()
    losses = 0
    for idx, batch in enumerate(train_iter):
        seq, coords, angs, mask = prepare_batch(batch)
        src_padding_mask, tgt_padding_mask = create_mask(seq, seq)

        logits = model(seq, seq, src_mask=mask, tgt_mask=mask, src_padding_mask=src_padding_mask,
                       tgt_padding_mask=tgt_padding_mask, memory_key_padding_mask=src_padding_mask)

        optimizer.zero_grad()
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), angs.reshape(-1, angs.shape[-1]))
        loss.backward()

        optimizer.step()
        losses += loss.item()
    return losses / len(train_iter)


def evaluate(model, val_iter):
    model.eval()
    losses = 0
    with torch.no_grad():
        for idx, batch in enumerate(val_iter):
            seq, coords, angs, mask = prepare_batch(batch)
            src_padding_mask, tgt_padding_mask = create_mask(seq, seq)
            logits = model(seq, seq, src_mask=mask, tgt_mask=mask, src_padding_mask=src_padding_mask,
                           tgt_padding_mask=tgt_padding_mask, memory_key_padding_mask=src_padding_mask)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), angs.reshape(-1, angs.shape[-1]))
            losses += loss.item()
    return losses / len(val_iter)


# data

raw_data = scn.load(casp_version=12, thinning=30, batch_size=BATCH_SIZE, dynamic_batching=False)
filtered_raw_data = filter_dictionary_by_seq_length(raw_data, THRESHOLD_LENGTH, "train")
writer_train = SummaryWriter("runs/train")
writer_valids = []
for split in scn.utils.download.VALID_SPLITS:
    filtered_raw_data = filter_dictionary_by_seq_length(filtered_raw_data, THRESHOLD_LENGTH, f"{split}")
    writer_valids.append(SummaryWriter(f"runs/{split}"))
data = prepare_dataloaders(filtered_raw_data, aggregate_model_input=True, batch_size=BATCH_SIZE, num_workers=4,
                           seq_as_onehot=None, collate_fn=None, dynamic_batching=False,
                           optimize_for_cpu_parallelism=False, train_eval_downsample=.2)

# model

transformer = Seq2SeqTransformer(num_encoder_layers=NUM_ENCODER_LAYERS, num_decoder_layers=NUM_DECODER_LAYERS,
                                 emb_size=EMB_SIZE, src_vocab_size=SRC_VOCAB_SIZE, tgt_vocab_size=TGT_VOCAB_SIZE,
                                 dim_feedforward=FFN_HID_DIM, num_head=NUM_HEAD)
for p in transformer.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
transformer = transformer.to(DEVICE)

loss_fn = torch.nn.MSELoss()

# optimizer

optimizer = torch.optim.Adam(transformer.parameters(), lr=0.0001, betas=(0.9, 0.98), eps=1e-9)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=5)

prev_epoch = 0
if os.path.exists(MODEL_PATH):
    checkpoint = torch.load(MODEL_PATH, map_location="cpu")
    transformer.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
    prev_epoch = checkpoint["epoch"]

# training loop

for epoch in range(prev_epoch + 1, NUM_EPOCHS + 1):
    start_time = time.time()
    train_loss = train_epoch(transformer, iter(data["train"]), optimizer)
    print(f"Epoch: {epoch}, Train loss: {train_loss:.3f}, Epoch time = {(time.time() - start_time):.3f}s")
    for writer, split in zip(writer_valids, scn.utils.download.VALID_SPLITS):
        val_loss = evaluate(transformer, iter(data[f"{split}"]))
        writer.add_scalar("loss", val_loss, epoch)
        print(f"Epoch: {epoch}, {split} loss: {val_loss:.3f}")
    writer_train.add_scalar("loss", train_loss, epoch)
    scheduler.step(train_loss)
    torch.save({
        "epoch": epoch,
        "model_state_dict": transformer.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "loss": train_loss,
    }, MODEL_PATH)
