import argparse
import os

import torch
import yaml
from torch.utils.data import DataLoader

from wenet.dataset.dataset import AsrDataset, collate
from wenet.utils.checkpoint import save_checkpoint
from wenet.utils.init_model import init_model


def get_args():
    parser = argparse.ArgumentParser(description="train an ASR model")
    parser.add_argument("--config", required=True)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--checkpoint", default=None)
    return parser.parse_args()


def main():
    args = get_args()
    with open(args.config) as fin:
        configs = yaml.load(fin, Loader=yaml.FullLoader)
    model, configs = init_model(args, configs)
    model = model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), **configs["optim_conf"])
    dataset = AsrDataset(configs["train_data"])
    loader = DataLoader(dataset, batch_size=configs.get("batch_size", 16), shuffle=True,
                        num_workers=2, collate_fn=collate)

    step = configs["init_infos"].get("step", 0)
    start_epoch = configs["init_infos"].get("epoch", -1) + 1
    for epoch in range(start_epoch, configs.get("max_epoch", 100)):
        model.train()
        for feats, feats_lengths, text, text_lengths in loader:
            optimizer.zero_grad()
            loss = model(feats.cuda(), feats_lengths.cuda(), text.cuda(), text_lengths.cuda())["loss"]
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), configs.get("grad_clip", 5.0))
            optimizer.step()
            step += 1
        save_checkpoint(model, os.path.join(args.model_dir, f"{epoch}.pt"), {"epoch": epoch, "step": step})


if __name__ == "__main__":
    main()
