"""Evaluation of trained CLAM checkpoints on a test split."""
import numpy as np
import torch
from sklearn.metrics import roc_auc_score

from models.model_clam import CLAM
from utils.utils import get_simple_loader, print_network

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def initiate_model(args, ckpt_path):
    print("Init Model")
    model_dict = {"dropout": args.drop_out, "n_classes": args.n_classes}
    if args.model_size is not None:
        model_dict.update({"size_arg": args.model_size})
    model = CLAM(**model_dict)
    model.relocate()
    print_network(model)

    ckpt = torch.load(ckpt_path)
    ckpt_clean = {}
    for key in ckpt.keys():
        if "instance_loss_fn" in key:
            continue
        ckpt_clean.update({key.replace(".module", ""): ckpt[key]})
    model.load_state_dict(ckpt_clean, strict=True)

    model.eval()
    return model


def eval(dataset, args, ckpt_path):
    model = initiate_model(args, ckpt_path)
    print("Init Loaders")
    loader = get_simple_loader(dataset)
    test_error, auc = summary(model, loader, args)
    print("test_error: ", test_error)
    print("auc: ", auc)
    return model, test_error, auc


def summary(model, loader, args):
    model.eval()
    test_error = 0.0
    all_probs = np.zeros((len(loader), args.n_classes))
    all_labels = np.zeros(len(loader))
    for batch_idx, (data, label) in enumerate(loader):
        data, label = data.to(device), label.to(device)
        with torch.no_grad():
            logits, Y_prob, Y_hat, _, _ = model(data)
        all_probs[batch_idx] = Y_prob.cpu().numpy()
        all_labels[batch_idx] = label.item()
        test_error += float(Y_hat.float().eq(label.float()).float().mean().item() == 0)
    test_error /= len(loader)
    auc = roc_auc_score(all_labels, all_probs[:, 1]) if args.n_classes == 2 else float("nan")
    return test_error, auc
