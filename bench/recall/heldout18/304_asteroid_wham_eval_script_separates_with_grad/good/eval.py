import argparse
import json
import os
import random

import pandas as pd
import soundfile as sf
import torch
import yaml
from tqdm import tqdm

from model import make_model_and_optimizer

parser = argparse.ArgumentParser()
parser.add_argument("--test_dir", required=True, help="Folder with mix/ s1/ s2/ wav files")
parser.add_argument("--use_gpu", type=int, default=0)
parser.add_argument("--exp_dir", default="exp/tmp")
parser.add_argument("--n_save_ex", type=int, default=20)


def si_sdr(est, ref, eps=1e-8):
    ref = ref - ref.mean(-1, keepdim=True)
    est = est - est.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) * ref / (ref.pow(2).sum(-1, keepdim=True) + eps)
    noise = est - proj
    return 10 * torch.log10(proj.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps) + eps)


def best_permutation(est, ref):
    direct = si_sdr(est, ref).mean()
    swapped = si_sdr(est.flip(0), ref).mean()
    return est if direct >= swapped else est.flip(0)


def load_test_set(test_dir):
    names = sorted(os.listdir(os.path.join(test_dir, "mix")))
    items = []
    for name in names:
        mix, _ = sf.read(os.path.join(test_dir, "mix", name), dtype="float32")
        s1, _ = sf.read(os.path.join(test_dir, "s1", name), dtype="float32")
        s2, _ = sf.read(os.path.join(test_dir, "s2", name), dtype="float32")
        items.append((name, torch.from_numpy(mix), torch.stack([torch.from_numpy(s1), torch.from_numpy(s2)])))
    return items


def get_model(conf):
    model, _ = make_model_and_optimizer(conf["train_conf"])
    with open(os.path.join(conf["exp_dir"], "best_k_models.json")) as f:
        best_k = json.load(f)
    best_path = min(best_k, key=best_k.get)
    checkpoint = torch.load(best_path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint["state_dict"])
    if conf["use_gpu"]:
        model.cuda()
    model.eval()
    return model


def main(conf):
    model = get_model(conf)
    device = next(model.parameters()).device
    test_set = load_test_set(conf["test_dir"])
    save_idx = set(random.sample(range(len(test_set)), min(conf["n_save_ex"], len(test_set))))
    rows = []
    torch.no_grad().__enter__()
    for idx, (name, mix, sources) in enumerate(tqdm(test_set)):
        mix, sources = mix.to(device), sources.to(device)
        est_sources = model(mix[None, None])
        est = best_permutation(est_sources[0], sources)
        rows.append({"utt": name, "si_sdr": si_sdr(est, sources).mean().item(),
                     "input_si_sdr": si_sdr(mix.expand_as(sources), sources).mean().item()})
        if idx in save_idx:
            out_dir = os.path.join(conf["exp_dir"], "examples", f"ex_{idx}")
            os.makedirs(out_dir, exist_ok=True)
            for k, wav in enumerate(est.detach().cpu().numpy()):
                sf.write(os.path.join(out_dir, f"s{k}_estimate.wav"), wav, conf["sample_rate"])

    df = pd.DataFrame(rows)
    df.to_csv(os.path.join(conf["exp_dir"], "all_metrics.csv"))
    print(df[["si_sdr", "input_si_sdr"]].mean())


if __name__ == "__main__":
    args = vars(parser.parse_args())
    with open(os.path.join(args["exp_dir"], "conf.yml")) as f:
        train_conf = yaml.safe_load(f)
    args["sample_rate"] = train_conf["data"]["sample_rate"]
    args["train_conf"] = train_conf
    main(args)
