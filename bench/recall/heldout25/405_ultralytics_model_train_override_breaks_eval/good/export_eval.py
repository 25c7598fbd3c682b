"""Load a trained detector and put it in inference mode before tracing it."""
import torch

from ultralytics import YOLO

model = YOLO("runs/detect/train/weights/best.pt")
model.eval()  # nn.Module.eval(): switches the wrapped network to inference mode
example = torch.zeros(1, 3, 640, 640)
traced = torch.jit.trace(model.model, example)
traced.save("best.torchscript")
