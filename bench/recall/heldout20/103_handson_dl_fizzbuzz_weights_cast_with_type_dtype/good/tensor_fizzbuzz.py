import torch

from fizzbuzz_data import from_bits, label_of, one_hot_dataset

epochs = 5
batch_size = 64
lr = 0.01
input_size = 10
output_size = 4
hidden_size = 100

trX, trY, teX, teY = one_hot_dataset(input_size)
device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.float32

x = torch.from_numpy(trX).to(device=device, dtype=dtype)
y = torch.from_numpy(trY).to(device=device, dtype=dtype)

w1 = torch.randn(input_size, hidden_size, requires_grad=True, device=device, dtype=dtype)
w2 = torch.randn(hidden_size, output_size, requires_grad=True, device=device, dtype=dtype)
b1 = torch.zeros(1, hidden_size, requires_grad=True, device=device, dtype=dtype)
b2 = torch.zeros(1, output_size, requires_grad=True, device=device, dtype=dtype)

n_batches = len(trX) // batch_size
for epoch in range(epochs):
    for batch in range(n_batches):
        lo, hi = batch * batch_size, (batch + 1) * batch_size
        x_, y_ = x[lo:hi], y[lo:hi]

        hidden = x_.matmul(w1).add(b1).sigmoid()
        hyp = hidden.matmul(w2).add(b2).sigmoid()
        output = (hyp - y_).pow(2).sum() / 2.0
        output.backward()

        with torch.no_grad():
            w1 -= lr * w1.grad
            w2 -= lr * w2.grad
            b1 -= lr * b1.grad
            b2 -= lr * b2.grad
        w1.grad.zero_()
        w2.grad.zero_()
        b1.grad.zero_()
        b2.grad.zero_()
    print(epoch, output.item())

with torch.no_grad():
    x = torch.from_numpy(teX).to(device=device, dtype=dtype)
    y = torch.from_numpy(teY).to(device=device, dtype=dtype)
    hyp = x.matmul(w1).add(b1).sigmoid().matmul(w2).add(b2).sigmoid()
    names = ["fizzbuzz", "buzz", "fizz", "number"]
    for i in range(len(teX)):
        n = from_bits(teX[i])
        print(f"{n}: actual {label_of(n)}, predicted {names[hyp[i].argmax().item()]}")
    accuracy = (hyp.argmax(1) == y.argmax(1)).float().mean().item()
    print("accuracy:", accuracy)
