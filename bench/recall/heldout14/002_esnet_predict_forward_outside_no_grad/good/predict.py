import argparse
import os
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader

from model import build_model


def save_predict(output, name, save_dir):
    os.makedirs(save_dir, exist_ok=True)
    Image.fromarray(output).save(os.path.join(save_dir, name + ".png"))


def predict(args, test_loader, model):
    """Run the model over the test images (no labels) and save grey-scale label maps."""
    model.eval()
    total_batches = len(test_loader)
    for i, (image, size, name) in enumerate(test_loader):
        with torch.no_grad():
            input_var = image.cuda()
            start_time = time.time()
            output = model(input_var)
            torch.cuda.synchronize()
            time_taken = time.time() - start_time
        print("[%d/%d]  time: %.2f" % (i + 1, total_batches, time_taken))
        output = output.cpu().data[0].numpy().transpose(1, 2, 0)
        output = np.asarray(np.argmax(output, axis=2), dtype=np.uint8)
        save_predict(output, name[0], args.save_seg_dir)


def test_model(args, test_set):
    model = build_model(args.model, num_classes=args.classes).cuda()
    checkpoint = torch.load(args.checkpoint, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    test_loader = DataLoader(test_set, batch_size=1, shuffle=False, num_workers=args.num_workers, pin_memory=True)
    print("=====> beginning testing")
    predict(args, test_loader, model)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="LightSegNet")
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--classes", type=int, default=19)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--save_seg_dir", default="./result/")
    args = parser.parse_args()
    test_model(args, torch.load("cityscapes_test_set.pt"))
