import torch

from kan import KAN


def create_dataset(f, n_var=2, n_train=1000, n_test=1000):
    train_input = torch.rand(n_train, n_var) * 2 - 1
    test_input = torch.rand(n_test, n_var) * 2 - 1
    return {
        "train_input": train_input,
        "train_label": f(train_input),
        "test_input": test_input,
        "test_label": f(test_input),
    }


def target(x):
    return torch.exp(torch.sin(torch.pi * x[:, [0]]) + x[:, [1]] ** 2)


if __name__ == "__main__":
    dataset = create_dataset(target)
    model = KAN(width=[2, 5, 1], grid=8)
    history = model.fit(dataset, opt="LBFGS", steps=20, lamb=0.01)
    print("final test RMSE", history["test_loss"][-1])

    model.eval()
    with torch.no_grad():
        grid = torch.stack(torch.meshgrid(torch.linspace(-1, 1, 50), torch.linspace(-1, 1, 50), indexing="ij"), -1)
        surface = model(grid.reshape(-1, 2)).reshape(50, 50)
    torch.save(model.state_dict(), "kan_2_5_1.pt")
