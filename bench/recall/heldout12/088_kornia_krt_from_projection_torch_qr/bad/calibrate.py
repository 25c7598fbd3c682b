import torch

from geometry.projection import KRt_from_projection, projection_from_KRt


def random_rotation(batch: int) -> torch.Tensor:
    q, _ = torch.linalg.qr(torch.randn(batch, 3, 3, dtype=torch.float64))
    return q * torch.sign(torch.linalg.det(q)).view(-1, 1, 1)


def main():
    batch = 8
    K = torch.tensor([[500.0, 0.0, 320.0], [0.0, 500.0, 240.0], [0.0, 0.0, 1.0]], dtype=torch.float64).expand(batch, 3, 3)
    R = random_rotation(batch)
    t = torch.randn(batch, 3, 1, dtype=torch.float64)
    P = projection_from_KRt(K, R, t)
    K_est, R_est, t_est = KRt_from_projection(P)
    print("max |K - K_est|:", (K - K_est).abs().max().item())
    print("max |t - t_est|:", (t - t_est).abs().max().item())


if __name__ == "__main__":
    main()
