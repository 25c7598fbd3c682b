"""Evaluate the checkpoints of every cross-validation fold: `python eval.py --models_exp_code ...`."""
import argparse
import os

import pandas as pd

from datasets.dataset_generic import Generic_MIL_Dataset
from utils.eval_utils import eval

parser = argparse.ArgumentParser(description="CLAM Evaluation Script")
parser.add_argument("--data_root_dir", type=str, default=None)
parser.add_argument("--results_dir", type=str, default="./results")
parser.add_argument("--models_exp_code", type=str, default=None)
parser.add_argument("--model_size", type=str, choices=["small", "big"], default="small")
parser.add_argument("--drop_out", action="store_true", default=False)
parser.add_argument("--k", type=int, default=10)
parser.add_argument("--n_classes", type=int, default=2)
args = parser.parse_args()

models_dir = os.path.join(args.results_dir, str(args.models_exp_code))
dataset = Generic_MIL_Dataset(csv_path="dataset_csv/tumor_vs_normal_dummy_clean.csv",
                              data_dir=os.path.join(args.data_root_dir, "tumor_vs_normal_feat_resnet"))
ckpt_paths = [os.path.join(models_dir, "s_{}_checkpoint.pt".format(fold)) for fold in range(args.k)]

all_auc, all_acc = [], []
for ckpt_idx, ckpt_path in enumerate(ckpt_paths):
    split_dataset = dataset.return_splits(from_id=False, csv_path="{}/splits_{}.csv".format(models_dir, ckpt_idx))[2]
    model, test_error, auc = eval(split_dataset, args, ckpt_path)
    all_auc.append(auc)
    all_acc.append(1 - test_error)

pd.DataFrame({"folds": list(range(args.k)), "test_auc": all_auc, "test_acc": all_acc}).to_csv(
    os.path.join(models_dir, "summary.csv"))
