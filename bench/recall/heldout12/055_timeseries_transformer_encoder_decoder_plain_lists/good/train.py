import torch

from network import Transformer


def make_batch(batch_size, in_len, out_len):
    t = torch.rand(batch_size, 1) * 10 + torch.arange(in_len + out_len).float() * 0.1
    series = torch.sin(t).unsqueeze(-1)
    return series[:, :in_len], series[:, in_len:, 0]


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Transformer(dim_val=32, input_size=1, dec_seq_len=4, out_seq_len=2, n_encoder_layers=2, n_decoder_layers=2, n_heads=4).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for step in range(500):
        x, y = make_batch(16, 12, 2)
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())
    torch.save(model.state_dict(), "transformer.pt")


if __name__ == "__main__":
    main()
