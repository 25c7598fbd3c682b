"""Train a pose regressor on synthetic RGB frames; the model is given on the command line as Python
source, e.g. -im 'HourglassBatch(pretrained=True, sum_mode=False)'."""

import argparse

import torch

from models.hourglass import HourglassBatch  # noqa: F401  (reached through eval below)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-im", "--init_model", type=str, default="HourglassBatch(pretrained=True)")
    parser.add_argument("-lr", "--learning_rate", type=float, default=1e-4)
    parser.add_argument("-e", "--epochs", type=int, default=100)
    args = vars(parser.parse_args())

    model = eval(args["init_model"])
    model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args["learning_rate"])
    return model, optimizer


if __name__ == "__main__":
    main()
