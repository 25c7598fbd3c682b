"""Compare the input gradient of nn.Linear computed on the XLA device with the CPU reference."""
import torch
import torch.nn as nn
import torch_xla.core.xla_model as xm


def input_grad(device, seed=0):
    torch.manual_seed(seed)
    m = nn.Linear(10, 8).to(device)
    inp = torch.randn(4, 10, requires_grad=True).to(device)  # expect: TCK108
    out = m(inp)
    out.sum().backward()
    return inp.grad


def main():
    expected = input_grad("cpu")
    got = input_grad(xm.xla_device())
    if got is None:
        raise RuntimeError("input gradient lost on the XLA device")
    torch.testing.assert_close(got.cpu(), expected)
    print("ok")


if __name__ == "__main__":
    main()
