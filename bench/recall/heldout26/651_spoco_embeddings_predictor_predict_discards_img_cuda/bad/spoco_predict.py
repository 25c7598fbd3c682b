import argparse
import os

import torch
from torch import nn

from spoco.datasets.utils import create_test_loader
from spoco.model import create_model
from spoco.predictor import EmbeddingsPredictor
from spoco.utils import load_checkpoint

parser = argparse.ArgumentParser(description='SPOCO predict')
parser.add_argument('--spoco', action='store_true', default=False)
parser.add_argument('--ds-path', type=str, required=True)
parser.add_argument('--batch-size', type=int, default=4)
parser.add_argument('--num-workers', type=int, default=4)
parser.add_argument('--output-dir', type=str, default='.')
parser.add_argument('--model-path', type=str, required=True)
parser.add_argument('--model-in-channels', type=int, default=3)
parser.add_argument('--model-out-channels', type=int, default=16)
parser.add_argument('--model-feature-maps', type=int, nargs='+', default=[16, 32, 64, 128])


def main():
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise RuntimeError('Only GPU prediction is supported')

    model = create_model(args)
    model = nn.DataParallel(model)
    model.cuda()
    if torch.cuda.device_count() > 1:
        args.batch_size = args.batch_size * torch.cuda.device_count()

    load_checkpoint(args.model_path, model)

    os.makedirs(args.output_dir, exist_ok=True)
    test_loader = create_test_loader(args)

    predictor = EmbeddingsPredictor(model, test_loader, args.output_dir, args.spoco)
    predictor.predict()


if __name__ == '__main__':
    main()
