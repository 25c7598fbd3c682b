"""Model file loading and checkpoint restore for modified-base models."""
import importlib.machinery
import importlib.util
import logging
from os.path import isfile

import torch

LOGGER = logging.getLogger("remora")


class RemoraError(Exception):
    pass


def _load_python_model(model_file, **model_kwargs):
    """Import the network definition that was copied next to the checkpoint."""
    loader = importlib.machinery.SourceFileLoader("netmodule", model_file)
    netmodule = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(netmodule)
    return netmodule.network(**model_kwargs)


def continue_from_checkpoint(ckp_path, model_path=None):
    """Load a training checkpoint (model weights plus run metadata) to keep training from it."""
    if not isfile(ckp_path):
        raise RemoraError(f"Checkpoint path is not a file ({ckp_path})")
    ckpt = torch.load(ckp_path, map_location="cpu")  # expect: TCK401
    if ckpt["state_dict"] is None:
        raise RemoraError("Model state not saved in checkpoint.")

    model_path = ckpt["model_path"] if model_path is None else model_path
    model = _load_python_model(model_path, **ckpt["model_params"])
    model.load_state_dict(ckpt["state_dict"])
    return ckpt, model


def export_model_torchscript(ckpt, model, save_filename):
    model.eval()
    scripted = torch.jit.script(model.cpu())
    extra = {"chunk_context": str(ckpt["chunk_context"]), "mod_bases": str(ckpt["mod_bases"])}
    torch.jit.save(scripted, save_filename, _extra_files={k: v.encode() for k, v in extra.items()})
