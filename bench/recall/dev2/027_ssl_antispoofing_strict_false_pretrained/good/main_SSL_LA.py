import argparse

import torch

from model import Model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_path", type=str, default=None)
    parser.add_argument("--eval", action="store_true")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Model(args, device).to(device)
    if args.model_path:
        model.load_state_dict(torch.load(args.model_path, map_location=device, weights_only=True))
        print("Model loaded : {}".format(args.model_path))
    if args.eval:
        model.eval()
    return model


if __name__ == "__main__":
    main()
