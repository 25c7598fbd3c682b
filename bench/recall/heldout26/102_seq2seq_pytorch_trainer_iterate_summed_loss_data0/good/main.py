import argparse
import logging

import torch

from seq2seq import datasets, models
from seq2seq.tools.trainer import Seq2SeqTrainer

parser = argparse.ArgumentParser(description="Train a sequence-to-sequence translation model")
parser.add_argument("--dataset", default="WMT16_de_en")
parser.add_argument("--model", default="RecurrentAttentionSeq2Seq")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--grad-clip", type=float, default=5.0)
parser.add_argument("--label-smoothing", type=float, default=0.0)
parser.add_argument("--devices", default="0")
parser.add_argument("--save", default="results")


def main(args):
    logging.basicConfig(level=logging.INFO)
    dataset = getattr(datasets, args.dataset)
    train_data, val_data = dataset(split="train"), dataset(split="dev")
    model = getattr(models, args.model)(vocab_size=train_data.vocab_size)
    devices = tuple(int(d) for d in args.devices.split(","))
    if len(devices) == 1:
        torch.cuda.set_device(devices[0])
        model.cuda()
        devices = None
    trainer = Seq2SeqTrainer(model, regime=[{"epoch": 0, "optimizer": "Adam", "lr": 1e-3}],
                             label_smoothing=args.label_smoothing, grad_clip=args.grad_clip,
                             save_path=args.save, devices=devices)
    train_loader = train_data.get_loader(batch_size=args.batch_size, shuffle=True)
    val_loader = val_data.get_loader(batch_size=args.batch_size, shuffle=False)
    trainer.run(train_loader, val_loader, epochs=args.epochs)


if __name__ == "__main__":
    main(parser.parse_args())
