import argparse

import numpy as np

from laser_encoders import SentenceEncoder


def main():
    parser = argparse.ArgumentParser(description="Embed a text file with LASER")
    parser.add_argument("--encoder", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()

    encoder = SentenceEncoder(args.encoder, max_sentences=64, cpu=args.cpu)
    with open(args.input, encoding="utf-8") as f:
        sentences = [line.strip() for line in f if line.strip()]
    embeddings = encoder.encode_sentences(sentences)
    np.save(args.output, embeddings.astype(np.float32))


if __name__ == "__main__":
    main()
