import numpy as np
import torch

from mlp_implementations import MLPModel


def convert_mlp_classifier(coefs, intercepts, activation, classes, device="cpu"):
    """Build the tensor model from the fitted coefficients of an MLP classifier."""
    return MLPModel(coefs, intercepts, activation, classes, device)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    sizes = [20, 64, 32, 3]
    coefs = [rng.standard_normal((a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    intercepts = [rng.standard_normal(b) for b in sizes[1:]]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = convert_mlp_classifier(coefs, intercepts, "relu", [0, 1, 2]).to(device)
    model.eval()
    with torch.no_grad():
        labels, probs = model(torch.randn(128, 20, device=device))
    print(labels[:10], probs.shape)
