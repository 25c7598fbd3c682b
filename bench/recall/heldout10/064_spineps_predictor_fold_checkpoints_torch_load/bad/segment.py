import sys

import torch

from predictor import Predictor


def main(model_dir, folds="0"):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    predictor = Predictor(device)
    predictor.initialize_from_trained_model_folder(model_dir, use_folds=tuple(folds.split(",")))
    scan = torch.randn(1, 1, 32, 64, 64)
    seg = predictor.predict_logits(scan).argmax(dim=1)
    print(predictor.trainer_name, predictor.configuration_name, seg.shape)


if __name__ == "__main__":
    main(*sys.argv[1:])
