import torch

input_size = 10
hidden_size = 100
output_size = 4
epochs = 500
lr = 0.01

if torch.cuda.is_available():
    dtype = torch.cuda.FloatTensor
else:
    dtype = torch.FloatTensor

x = torch.randn(900, input_size).type(dtype)
y = torch.randn(900, output_size).type(dtype)

w1 = torch.randn(input_size, hidden_size, requires_grad=True).type(dtype)  # expect: TCK108
w2 = torch.randn(hidden_size, output_size, requires_grad=True).type(dtype)  # expect: TCK108
b1 = torch.zeros(1, hidden_size, requires_grad=True).type(dtype)  # expect: TCK108
b2 = torch.zeros(1, output_size, requires_grad=True).type(dtype)  # expect: TCK108

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
