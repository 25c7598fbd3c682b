import torch

from end_model import EndModel


def main():
    torch.manual_seed(0)
    X = torch.randn(512, 20)
    Y = (X[:, 0] + X[:, 1] > 0).long()
    X_dev, Y_dev = X[:64], Y[:64]
    model = EndModel([20, 32, 2], config={"n_epochs": 3})
    model.train((X, Y), dev_data=(X_dev, Y_dev))
    print("dev accuracy", model.score(X_dev, Y_dev))


if __name__ == "__main__":
    main()
