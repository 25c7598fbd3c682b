import argparse

import torch

from attention_seq2seq import AttentionSeq2seq

parser = argparse.ArgumentParser()
parser.add_argument("--param_init", type=float, default=0.1)
parser.add_argument("--param_init_dist", type=str, default="uniform",
                    choices=["uniform", "normal", "orthogonal", "constant"])
parser.add_argument("--rec_weight_orthogonal", action="store_true")
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

model = AttentionSeq2seq(input_size=40, num_units=64, num_classes=30,
                         parameter_init_distribution=args.param_init_dist,
                         parameter_init=args.param_init,
                         recurrent_weight_orthogonal=args.rec_weight_orthogonal)
optimizer = model.set_optimizer("adam", learning_rate=1e-3)

for epoch in range(args.epochs):
    xs = torch.randn(8, 100, 40)
    ys = torch.randint(0, 30, (8, 12))
    optimizer.zero_grad()
    loss = model(xs, ys)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    print(epoch, loss.item())
