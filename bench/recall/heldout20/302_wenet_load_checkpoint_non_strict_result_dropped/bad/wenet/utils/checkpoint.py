import datetime
import logging
import os
import re

import torch
import yaml


def load_checkpoint(model: torch.nn.Module, path: str) -> dict:
    logging.info("Checkpoint: loading from checkpoint %s", path)
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint, strict=False)  # expect: TCK403
    info_path = re.sub(r"\.pt$", ".yaml", path)
    configs = {}
    if os.path.exists(info_path):
        with open(info_path, "r") as fin:
            configs = yaml.load(fin, Loader=yaml.FullLoader)
    return configs


def save_checkpoint(model: torch.nn.Module, path: str, infos=None):
    logging.info("Checkpoint: save to checkpoint %s", path)
    if isinstance(model, (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)):
        state_dict = model.module.state_dict()
    else:
        state_dict = model.state_dict()
    torch.save(state_dict, path)
    infos = dict(infos or {})
    infos["save_time"] = datetime.datetime.now().strftime("%d/%m/%Y %H:%M:%S")
    with open(re.sub(r"\.pt$", ".yaml", path), "w") as fout:
        fout.write(yaml.dump(infos))
