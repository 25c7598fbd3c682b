import numpy as np
import torch

from autoencoder import AutoEncoderDetector


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    t = np.arange(5000)
    values = np.stack([np.sin(t / 20), np.cos(t / 35)], axis=1) + 0.05 * rng.standard_normal((5000, 2))
    values[3000:3010] += 3.0
    device = "cuda" if torch.cuda.is_available() else "cpu"
    detector = AutoEncoderDetector(device=device)
    scores = detector.train(values)
    print("most anomalous window starts at", int(scores.argmax()))
