import argparse
import itertools
import os

import torch
from torch import nn, optim
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from visdial_model import DiscriminativeDecoder, EncoderDecoderModel, LateFusionEncoder, VisDialDataset

parser = argparse.ArgumentParser()
parser.add_argument("--gpu-ids", nargs="+", type=int, default=[0])
parser.add_argument("--cpu-workers", type=int, default=4)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--num-epochs", type=int, default=20)
parser.add_argument("--initial-lr", type=float, default=0.01)
parser.add_argument("--training-splits", default="train", choices=["train", "trainval"])
parser.add_argument("--validate", action="store_true")
parser.add_argument("--save-dirpath", default="checkpoints/")
args = parser.parse_args()

torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True

device = torch.device("cuda", args.gpu_ids[0]) if args.gpu_ids[0] >= 0 else torch.device("cpu")

# =============================================================================
#   SETUP DATASET, DATALOADER, MODEL, CRITERION, OPTIMIZER, SCHEDULER
# =============================================================================

train_dataset = VisDialDataset()
train_dataloader = DataLoader(train_dataset, batch_size=args.batch_size, num_workers=args.cpu_workers,
                              shuffle=True)
val_dataset = VisDialDataset(size=128)
val_dataloader = DataLoader(val_dataset, batch_size=args.batch_size, num_workers=args.cpu_workers)

encoder = LateFusionEncoder()
decoder = DiscriminativeDecoder()
# share word embedding between encoder and decoder
decoder.word_embed = encoder.word_embed
model = EncoderDecoderModel(encoder, decoder).to(device)

criterion = nn.CrossEntropyLoss()
iterations = len(train_dataset) // args.batch_size + 1
optimizer = optim.Adamax(model.parameters(), lr=args.initial_lr)
scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda it: 0.1 ** (it // (10 * iterations)))

summary_writer = SummaryWriter(log_dir=args.save_dirpath)
global_iteration_step = 0

# =============================================================================
#   TRAINING LOOP
# =============================================================================

for epoch in range(args.num_epochs):
    if args.training_splits == "trainval":
        combined_dataloader = itertools.chain(train_dataloader, val_dataloader)
    else:
        combined_dataloader = itertools.chain(train_dataloader)

    print(f"\nTraining for epoch {epoch}:")
    for i, batch in enumerate(tqdm(combined_dataloader)):
        for key in batch:
            batch[key] = batch[key].to(device)

        optimizer.zero_grad()
        output = model(batch)
        target = batch["ans_ind"]
        batch_loss = criterion(output.view(-1, output.size(-1)), target.view(-1))
        batch_loss.backward()
        optimizer.step()

        summary_writer.add_scalar("train/loss", batch_loss, global_iteration_step)
        summary_writer.add_scalar("train/lr", optimizer.param_groups[0]["lr"], global_iteration_step)

        scheduler.step()
        global_iteration_step += 1
    torch.cuda.empty_cache()

    # -------------------------------------------------------------------------
    #   ON EPOCH END  (checkpointing and validation)
    # -------------------------------------------------------------------------
    os.makedirs(args.save_dirpath, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(args.save_dirpath, f"checkpoint_{epoch}.pth"))

    if args.validate:
        model.eval()
        correct, total = 0, 0
        for i, batch in enumerate(tqdm(val_dataloader)):
            for key in batch:
                batch[key] = batch[key].to(device)
            with torch.no_grad():
                output = model(batch)
            correct += (output.argmax(-1) == batch["ans_ind"]).sum().item()
            total += batch["ans_ind"].numel()
        print(f"r@1: {correct / total:.4f}")
        summary_writer.add_scalar("metrics/r@1", correct / total, global_iteration_step)

        model.train()
        torch.cuda.empty_cache()
