import argparse

import cv2
import numpy as np
import torch
from torchvision import models

from pytorch_grad_cam import GradCAM, ScoreCAM
from pytorch_grad_cam.utils.image import preprocess_image, show_cam_on_image


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--image-path", default="./examples/both.png")
    parser.add_argument("--method", default="gradcam", choices=["gradcam", "scorecam"])
    return parser.parse_args()


if __name__ == "__main__":
    args = get_args()
    methods = {"gradcam": GradCAM, "scorecam": ScoreCAM}
    model = models.resnet50(weights=models.ResNet50_Weights.DEFAULT).to(torch.device(args.device)).eval()
    target_layers = [model.layer4]
    rgb_img = cv2.imread(args.image_path, 1)[:, :, ::-1]
    rgb_img = np.float32(rgb_img) / 255
    input_tensor = preprocess_image(rgb_img, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]).to(args.device)
    with methods[args.method](model=model, target_layers=target_layers) as cam:
        grayscale_cam = cam(input_tensor=input_tensor, targets=None)[0, :]
        cam_image = show_cam_on_image(rgb_img, grayscale_cam, use_rgb=True)
    cv2.imwrite(f"{args.method}_cam.jpg", cv2.cvtColor(cam_image, cv2.COLOR_RGB2BGR))
