"""Train (or fine-tune) a modified-base classifier and checkpoint the best epoch."""
import logging
import os
import shutil

import numpy as np
import torch

from remora import model_util

LOGGER = logging.getLogger("remora")
BEST_MODEL_FILENAME = "model_best.checkpoint"


def save_model(model, ckpt_save_data, out_path, epoch, opt, model_name=BEST_MODEL_FILENAME):
    ckpt_save_data["epoch"] = epoch + 1
    state_dict = model.state_dict()
    state_dict.pop("total_ops", None)
    state_dict.pop("total_params", None)
    ckpt_save_data["state_dict"] = state_dict
    ckpt_save_data["opt"] = opt.state_dict()
    torch.save(ckpt_save_data, os.path.join(out_path, model_name))


def evaluate(model, loader, criterion, device):
    model.eval()
    total, correct, losses = 0, 0, []
    with torch.no_grad():
        for enc_kmers, sigs, labels in loader:
            outputs = model(sigs.to(device), enc_kmers.to(device))
            labels = labels.to(device)
            losses.append(criterion(outputs, labels).item())
            correct += (outputs.argmax(dim=1) == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / max(total, 1), float(np.mean(losses))


def train_model(seed, device, out_path, dataset, trn_loader, val_loader, model_path, model_params,
                epochs, lr, finetune_path=None, freeze_num_layers=0):
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.makedirs(out_path, exist_ok=True)
    copy_model_path = shutil.copy(model_path, out_path)

    model = model_util._load_python_model(copy_model_path, **model_params)
    if finetune_path is not None:
        ckpt, model = model_util.continue_from_checkpoint(finetune_path, copy_model_path)
        for freeze_iter, (p_name, param) in enumerate(model.named_parameters()):
            if freeze_iter >= freeze_num_layers:
                break
            LOGGER.debug(f"Freezing layer for training: {p_name}")
            param.requires_grad = False
        if ckpt["model_params"]["num_out"] != dataset.metadata.num_labels:
            model.fc = torch.nn.Linear(model.fc.in_features, dataset.metadata.num_labels)
        if dataset.metadata.chunk_context != ckpt["chunk_context"]:
            raise model_util.RemoraError("Chunk context of the pre-trained model and the dataset differ.")
    model = model.to(device)

    criterion = torch.nn.CrossEntropyLoss()
    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)

    ckpt_save_data = {
        "epoch": 0,
        "state_dict": model.state_dict(),
        "opt": opt.state_dict(),
        "model_path": copy_model_path,
        "model_params": model_params,
        "chunk_context": dataset.metadata.chunk_context,
        "mod_bases": dataset.metadata.mod_bases,
        "kmer_context_bases": dataset.metadata.kmer_context_bases,
        # the signal-mapping refiner's k-mer levels are a NumPy array
        "refine_kmer_levels": dataset.metadata.refine_kmer_levels,
    }
    best_val_acc = 0.0
    for epoch in range(epochs):
        model.train()
        for enc_kmers, sigs, labels in trn_loader:
            opt.zero_grad()
            outputs = model(sigs.to(device), enc_kmers.to(device))
            loss = criterion(outputs, labels.to(device))
            loss.backward()
            opt.step()
        val_acc, val_loss = evaluate(model, val_loader, criterion, device)
        LOGGER.info(f"epoch {epoch}: val acc {val_acc:.4f} loss {val_loss:.6f}")
        if val_acc > best_val_acc:
            best_val_acc = val_acc
            save_model(model, ckpt_save_data, out_path, epoch, opt)
    return model
