import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from speakernet import ModelTrainer, SpeakerNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_epoch", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=200)
    parser.add_argument("--mixedprec", action="store_true")
    parser.add_argument("--nDataLoaderThread", type=int, default=5)
    args = parser.parse_args()

    feats = torch.randn(2000, 1, 40, 200)
    labels = torch.randint(0, 1211, (2000,))
    loader = DataLoader(TensorDataset(feats, labels), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.nDataLoaderThread, pin_memory=True, drop_last=True)

    model = SpeakerNet(nOut=512, nClasses=1211, nPerSpeaker=1).cuda()
    trainer = ModelTrainer(model, mixedprec=args.mixedprec)
    for epoch in range(1, args.max_epoch + 1):
        loss, traineer = trainer.train_network(loader)
        print(f"epoch {epoch}: loss {loss:.4f} top1 {traineer:.2f}")
        if epoch % 10 == 0:
            trainer.save_parameters(f"model{epoch:09d}.model")


if __name__ == "__main__":
    main()
