from ultralytics.engine.model import Model
from ultralytics.engine.trainer import BaseTrainer


class DetectionTrainer(BaseTrainer):
    pass


class YOLO(Model):
    """YOLO object detection model."""

    def __init__(self, model="yolo11n.pt", task=None):
        super().__init__(model=model, task=task)

    @property
    def task_map(self):
        return {"detect": {"trainer": DetectionTrainer}}
