import json
import time
from pathlib import Path

TRAIN = "train"
VAL = "val"


class TrainLogger:
    def __init__(self, run_id, path="./results"):
        self.path = Path(path) / run_id
        self.path.mkdir(parents=True, exist_ok=True)

    def log_metrics(self, stage, metrics):
        record = {"stage": stage, "time": time.time(), **metrics}
        with open(self.path / f"metrics_{stage}.jsonl", "a") as f:
            f.write(json.dumps(record) + "\n")
