import torch
import torch.nn.functional as F


def invert_features(encoder, target_features, shape, steps=200, lr=0.05, device="cpu"):
    """Optimise an input image so that the encoder reproduces target_features."""
    image = torch.rand(shape, device=device, requires_grad=True)
    encoder = encoder.to(device).eval()
    target_features = target_features.to(device)

    for step in range(steps):
        loss = F.mse_loss(encoder(image), target_features) + 1e-4 * image.pow(2).sum()
        loss.backward()
        with torch.no_grad():
            grad = image.grad
            if grad is None:
                raise RuntimeError(f"no gradient reached the input at step {step}")
            image -= lr * grad.sign()
            image.clamp_(0.0, 1.0)
            image.grad.zero_()
    return image.detach()
