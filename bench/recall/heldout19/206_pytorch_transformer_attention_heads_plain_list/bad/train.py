import numpy as np
import torch

from Network import Transformer


def get_batch(batch_size, input_len, output_len):
    t0 = np.random.rand(batch_size, 1) * 2 * np.pi
    t = t0 + np.linspace(0, 4 * np.pi, input_len + output_len)[None, :]
    series = np.sin(t) + 0.05 * np.random.randn(*t.shape)
    x = torch.tensor(series[:, :input_len, None], dtype=torch.float32)
    y = torch.tensor(series[:, input_len:], dtype=torch.float32)
    return x, y


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    enc_seq_len, dec_seq_len, output_sequence_length = 6, 2, 1
    model = Transformer(dim_val=10, dim_attn=5, input_size=1, dec_seq_len=dec_seq_len,
                        out_seq_len=output_sequence_length, n_decoder_layers=2,
                        n_encoder_layers=2, n_heads=4).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.002)
    for step in range(2000):
        x, y = get_batch(15, enc_seq_len, output_sequence_length)
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = torch.mean((model(x) - y) ** 2)
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.5f}")
    torch.save(model.state_dict(), "transformer.pt")


if __name__ == "__main__":
    main()
