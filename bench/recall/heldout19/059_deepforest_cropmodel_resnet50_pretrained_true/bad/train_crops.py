import argparse

from model import CropModel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_dir", required=True)
    parser.add_argument("--val_dir", required=True)
    parser.add_argument("--num_classes", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    crop_model = CropModel(num_classes=args.num_classes, batch_size=16, num_workers=4)
    crop_model.create_trainer(max_epochs=args.epochs, accelerator="auto")
    crop_model.load_from_disk(train_dir=args.train_dir, val_dir=args.val_dir)
    crop_model.trainer.fit(crop_model)


if __name__ == "__main__":
    main()
