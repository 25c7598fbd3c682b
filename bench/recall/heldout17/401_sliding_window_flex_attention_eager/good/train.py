import torch
import torch.nn.functional as F

from model import SequenceModel, build_block_mask

WINDOW = 5
SEQ_LEN = 25000


def main():
    device = torch.device("cuda")
    model = SequenceModel(in_dim=16).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    block_mask = build_block_mask(SEQ_LEN, WINDOW, device)

    for step in range(1000):
        x = torch.randn(16, SEQ_LEN, 16, device=device)
        target = x.cumsum(dim=1)[..., :1]
        pred = model(x, block_mask)
        loss = F.mse_loss(pred, target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
