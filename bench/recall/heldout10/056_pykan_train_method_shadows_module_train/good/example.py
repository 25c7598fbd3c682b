import torch

from kan import KAN


def create_dataset(f, n_var=2, train_num=1000, test_num=1000):
    train_input = torch.rand(train_num, n_var) * 2 - 1
    test_input = torch.rand(test_num, n_var) * 2 - 1
    return {
        "train_input": train_input,
        "train_label": f(train_input),
        "test_input": test_input,
        "test_label": f(test_input),
    }


def main():
    f = lambda x: torch.exp(torch.sin(torch.pi * x[:, [0]]) + x[:, [1]] ** 2)
    dataset = create_dataset(f, n_var=2)
    model = KAN(width=[2, 5, 1], grid=5, k=3)
    results = model.fit(dataset, opt="Adam", steps=50, lamb=0.01)
    print(results["train_loss"][-1], results["test_loss"][-1])

    model.eval()
    with torch.no_grad():
        pred = model(dataset["test_input"])
    print(torch.mean((pred - dataset["test_label"]) ** 2).item())


if __name__ == "__main__":
    main()
