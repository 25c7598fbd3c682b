import argparse

import torch

from reco_encoder.model import AutoEncoder, masked_mse


def main():
    parser = argparse.ArgumentParser(description="RecoEncoder")
    parser.add_argument("--hidden_layers", default="512,512,1024")
    parser.add_argument("--non_linearity_type", default="selu")
    parser.add_argument("--constrained", default="true", choices=["true", "false"])
    parser.add_argument("--drop_prob", type=float, default=0.8)
    parser.add_argument("--num_epochs", type=int, default=12)
    parser.add_argument("--lr", type=float, default=0.001)
    args = parser.parse_args()

    num_items = 17768
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    layer_sizes = [num_items] + [int(size) for size in args.hidden_layers.split(",")]
    model = AutoEncoder(
        layer_sizes=layer_sizes,
        nl_type=args.non_linearity_type,
        is_constrained=args.constrained == "true",
        dp_drop_prob=args.drop_prob,
        last_layer_activations=False,
    ).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    for epoch in range(args.num_epochs):
        model.train()
        total, denom = 0.0, 0.0
        for _ in range(100):
            ratings = torch.randint(0, 6, (128, num_items), device=device).float()
            optimizer.zero_grad()
            loss, num_ratings = masked_mse(model(ratings), ratings)
            (loss / num_ratings).backward()
            optimizer.step()
            total += loss.item()
            denom += num_ratings.item()
        print(f"epoch {epoch}: RMSE {(total / denom) ** 0.5:.4f}")


if __name__ == "__main__":
    main()
