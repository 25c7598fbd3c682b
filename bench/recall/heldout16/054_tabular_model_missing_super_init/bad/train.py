import torch
import torch.nn.functional as F

from models import make_simple_model, mlp


def main():
    n_num, n_cat_tokens, d_cat = 8, 20, 4
    model = make_simple_model(
        input={
            "x_num": lambda x_num: x_num,
            "x_cat": (torch.nn.Embedding(n_cat_tokens, d_cat), "x_cat"),
        },
        main=mlp(n_num + 3 * d_cat, 128, 3, 1),
        main_input_ndim=2,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(200):
        x_num = torch.randn(64, n_num)
        x_cat = torch.randint(0, n_cat_tokens, (64, 3))
        y = torch.randn(64, 1)
        loss = F.mse_loss(model(x_num=x_num, x_cat=x_cat), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
