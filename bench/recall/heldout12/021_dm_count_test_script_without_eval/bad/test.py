import argparse
import os

import numpy as np
import torch

from crowd import CrowdTest
from models import resnet50_counter

parser = argparse.ArgumentParser(description="Test")
parser.add_argument("--device", default="0", help="assign device")
parser.add_argument("--model-path", type=str, default="ckpts/best_model.pth")
parser.add_argument("--data-path", type=str, default="data/QNRF-Train-Val-Test")
args = parser.parse_args()

os.environ["CUDA_VISIBLE_DEVICES"] = args.device
device = torch.device("cuda")

dataset = CrowdTest(os.path.join(args.data_path, "test"))
dataloader = torch.utils.data.DataLoader(dataset, 1, shuffle=False, num_workers=1, pin_memory=True)

model = resnet50_counter()
model.to(device)
model.load_state_dict(torch.load(args.model_path, map_location=device, weights_only=True))
image_errs = []
for inputs, count, name in dataloader:
    inputs = inputs.to(device)
    with torch.set_grad_enabled(False):
        outputs, _ = model(inputs)  # expect: TCK114
    img_err = count[0].item() - torch.sum(outputs).item()
    print(name, img_err, count[0].item(), torch.sum(outputs).item())
    image_errs.append(img_err)

image_errs = np.array(image_errs)
mse = np.sqrt(np.mean(np.square(image_errs)))
mae = np.mean(np.abs(image_errs))
print("{}: mae {}, mse {}\n".format(args.model_path, mae, mse))
