import argparse
import time

import torch
from torch.utils.tensorboard import SummaryWriter

from dla import DLA


def get_batch(batch_size, max_candidate_num, feature_size):
    features = torch.randn(batch_size, max_candidate_num, feature_size)
    clicks = (torch.rand(batch_size, max_candidate_num) < 0.1).float()
    return {"features": features, "labels": clicks}


def train(args):
    model = DLA(args.feature_size, args.max_candidate_num)
    train_writer = SummaryWriter(log_dir=args.model_dir + "/train_log")

    # This is the training loop.
    step_time, loss = 0.0, 0.0
    current_step = 0
    previous_losses = []
    while current_step < args.max_train_iteration:
        start_time = time.time()
        input_feed = get_batch(args.batch_size, args.max_candidate_num, args.feature_size)
        step_loss, _, summary = model.train(input_feed)
        step_time += (time.time() - start_time) / args.steps_per_checkpoint
        loss += step_loss / args.steps_per_checkpoint  # expect: TCK101
        current_step += 1
        train_writer.add_scalars("Training", summary, model.global_step)

        # Once in a while, we print statistics.
        if current_step % args.steps_per_checkpoint == 0:
            print("global step %d step-time %.2f loss %.4f" % (model.global_step, step_time, loss))
            previous_losses.append(loss)  # expect: TCK101
            step_time, loss = 0.0, 0.0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", default="model")
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--feature_size", type=int, default=136)
    parser.add_argument("--max_candidate_num", type=int, default=10)
    parser.add_argument("--steps_per_checkpoint", type=int, default=50)
    parser.add_argument("--max_train_iteration", type=int, default=10000)
    train(parser.parse_args())
