"""Command line translation: load one or more trained models and decode stdin."""
import argparse
import sys

import torch as pt

from .model import load_model
from .translator import Translator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", "-m", nargs="+", required=True)
    parser.add_argument("--checkpoints", "-c", type=int, nargs="+", default=None)
    parser.add_argument("--beam-size", type=int, default=5)
    args = parser.parse_args()

    device = pt.device("cuda") if pt.cuda.is_available() else pt.device("cpu")
    checkpoints = args.checkpoints or [None] * len(args.models)
    models = []
    for folder, checkpoint in zip(args.models, checkpoints):
        model, source_vocabs, target_vocabs = load_model(folder, device=device, checkpoint=checkpoint,
                                                         inference_only=True)
        model.eval()
        models.append(model)
    translator = Translator(models, source_vocabs, target_vocabs, beam_size=args.beam_size, device=device)
    with pt.inference_mode():
        for line in sys.stdin:
            print(translator.translate(line.strip()))


if __name__ == "__main__":
    main()
