import torch

from model_ctrl import CtrlNetModel


def main(steps=20):
    model = CtrlNetModel({"base_load_from": "checkpoints/base_model.pt"})
    optimizer = torch.optim.AdamW(model.ctrl_branch.parameters(), lr=1e-4)
    for _ in range(steps):
        x, hint = torch.randn(2, 16, 256), torch.randn(2, 16, 256)
        target = torch.randn(2, 16, 256)
        loss = torch.nn.functional.mse_loss(model(x, hint), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item())


if __name__ == "__main__":
    main()
