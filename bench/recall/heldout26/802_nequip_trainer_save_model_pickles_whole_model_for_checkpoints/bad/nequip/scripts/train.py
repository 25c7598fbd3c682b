"""Entry point: `nequip-train config.yaml` builds the model from the config and trains it."""
import argparse

from nequip.data import dataset_from_config, DataLoader
from nequip.model import model_from_config
from nequip.train.trainer import Trainer
from nequip.utils import Config


def main(args=None):
    parser = argparse.ArgumentParser(description="Train a NequIP model.")
    parser.add_argument("config", help="configuration file")
    args = parser.parse_args(args=args)
    config = Config.from_file(args.config)

    dataset = dataset_from_config(config)
    n_train = config.get("n_train", int(0.9 * len(dataset)))
    dl_train = DataLoader(dataset[:n_train], batch_size=config.get("batch_size", 5), shuffle=True)
    dl_val = DataLoader(dataset[n_train:], batch_size=config.get("batch_size", 5))

    model = model_from_config(config=config, initialize=True, dataset=dataset)
    trainer = Trainer(model=model, **dict(config))
    trainer.train(dl_train, dl_val)


if __name__ == "__main__":
    main()
