"""Parse sentences with a released biaffine parser, or resume training a local one."""
import argparse

from supar import Parser


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="dep-biaffine-en")
    parser.add_argument("--data", default="data/ptb/test.conllx")
    parser.add_argument("--pred", default="pred.conllx")
    args = parser.parse_args()

    dep = Parser.load(args.model)
    dataset = dep.predict(args.data, pred=args.pred, lang="en", prob=True, verbose=False)
    print(dataset[0])


if __name__ == "__main__":
    main()
