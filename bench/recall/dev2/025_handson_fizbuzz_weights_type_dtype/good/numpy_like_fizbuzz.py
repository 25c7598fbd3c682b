import torch

input_size = 10
hidden_size = 100
output_size = 4
epochs = 500
lr = 0.01

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dtype = torch.float

x = torch.randn(900, input_size, device=device, dtype=dtype)
y = torch.randn(900, output_size, device=device, dtype=dtype)

w1 = torch.randn(input_size, hidden_size, requires_grad=True, device=device, dtype=dtype)
w2 = torch.randn(hidden_size, output_size, requires_grad=True, device=device, dtype=dtype)
b1 = torch.zeros(1, hidden_size, requires_grad=True, device=device, dtype=dtype)
b2 = torch.zeros(1, output_size, requires_grad=True, device=device, dtype=dtype)

for epoch in range(epochs):
    a2 = (x.matmul(w1) + b1).sigmoid()
    hyp = a2.matmul(w2) + b2
    error = hyp - y
    loss = error.pow(2).sum() / 2.0
    loss.backward()
    with torch.no_grad():
        w1 -= lr * w1.grad
        w2 -= lr * w2.grad
        b1 -= lr * b1.grad
        b2 -= lr * b2.grad
        w1.grad.zero_()
        w2.grad.zero_()
        b1.grad.zero_()
        b2.grad.zero_()
