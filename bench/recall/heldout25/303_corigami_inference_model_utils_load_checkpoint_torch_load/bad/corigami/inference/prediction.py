"""Predict a Hi-C contact map for a 2 Mb window from sequence, CTCF and ATAC signals."""
import argparse

import numpy as np
import torch

from corigami.inference.utils import plot_utils
from corigami.inference.utils.inference_utils import preprocess_default
from corigami.inference.utils.model_utils import load_default


def single_prediction(output_path, celltype, chr_name, start, model_path, seq_path, ctcf_path, atac_path):
    seq_region, ctcf_region, atac_region = preprocess_default(seq_path, ctcf_path, atac_path, chr_name, start)
    model = load_default(model_path)
    inputs = torch.cat([torch.tensor(seq_region), torch.tensor(ctcf_region).unsqueeze(1),
                        torch.tensor(atac_region).unsqueeze(1)], dim=1).unsqueeze(0).float()
    with torch.no_grad():
        pred = model(inputs.to(next(model.parameters()).device))[0].cpu().numpy()
    plot = plot_utils.MatrixPlot(output_path, pred, "prediction", celltype, chr_name, start)
    plot.plot()
    np.save(f"{output_path}/{chr_name}_{start}.npy", pred)


def main():
    parser = argparse.ArgumentParser(description="C.Origami prediction module")
    parser.add_argument("--out", dest="output_path", default="outputs")
    parser.add_argument("--celltype", required=True)
    parser.add_argument("--chr", dest="chr_name", required=True)
    parser.add_argument("--start", type=int, required=True)
    parser.add_argument("--model", dest="model_path", required=True)
    parser.add_argument("--seq", dest="seq_path", required=True)
    parser.add_argument("--ctcf", dest="ctcf_path", required=True)
    parser.add_argument("--atac", dest="atac_path", required=True)
    args = parser.parse_args()
    single_prediction(args.output_path, args.celltype, args.chr_name, args.start, args.model_path,
                      args.seq_path, args.ctcf_path, args.atac_path)


if __name__ == "__main__":
    main()
