import argparse

from accelerate import Accelerator

from runner import launch_training_task
from training_module import DiffusionTrainingModule, ModelLogger, UnifiedDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset_base_path", type=str, required=True)
    parser.add_argument("--output_path", type=str, default="./models")
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--num_epochs", type=int, default=1)
    parser.add_argument("--save_steps", type=int, default=None)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    args = parser.parse_args()

    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    dataset = UnifiedDataset(base_path=args.dataset_base_path)
    model = DiffusionTrainingModule.from_args(args)
    logger = ModelLogger(args.output_path)
    launch_training_task(accelerator, dataset, model, logger, learning_rate=args.learning_rate,
                         num_epochs=args.num_epochs, save_steps=args.save_steps)


if __name__ == "__main__":
    main()
