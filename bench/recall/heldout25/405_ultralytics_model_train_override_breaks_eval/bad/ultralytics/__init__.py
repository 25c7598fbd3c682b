from ultralytics.models.yolo.model import YOLO
