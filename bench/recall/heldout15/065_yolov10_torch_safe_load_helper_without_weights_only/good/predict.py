import argparse

import torch

from tasks import attempt_load_one_weight


def main():
    parser = argparse.ArgumentParser(description="Run a trained YOLOv10 detector on random input")
    parser.add_argument("--weights", default="yolov10n.pt")
    parser.add_argument("--imgsz", type=int, default=640)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model, ckpt = attempt_load_one_weight(args.weights, device=device, fuse=True)
    print("task:", model.task, "epoch:", ckpt.get("epoch"))
    with torch.no_grad():
        preds = model(torch.rand(1, 3, args.imgsz, args.imgsz, device=device))
    print(type(preds))


if __name__ == "__main__":
    main()
