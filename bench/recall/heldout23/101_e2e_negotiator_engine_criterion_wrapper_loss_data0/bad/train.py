import argparse

import data
import models
from engine import Engine


def main():
    parser = argparse.ArgumentParser(description="supervised training of the negotiation model")
    parser.add_argument("--data", type=str, default="data/negotiate")
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--nesterov", action="store_true", default=False)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--bsz", type=int, default=25)
    parser.add_argument("--max_epoch", type=int, default=30)
    parser.add_argument("--sel_weight", type=float, default=1.0)
    parser.add_argument("--nhid_lang", type=int, default=256)
    parser.add_argument("--cuda", action="store_true", default=False)
    args = parser.parse_args()

    device_id = 0 if args.cuda else None
    corpus = data.WordCorpus(args.data, freq_cutoff=20)
    model = models.DialogModel(corpus.word_dict, corpus.item_dict, corpus.context_dict, corpus.output_length, args)
    if args.cuda:
        model.cuda(device_id)
    engine = Engine(model, args, device_id=device_id, verbose=True)
    engine.train(corpus)


if __name__ == "__main__":
    main()
