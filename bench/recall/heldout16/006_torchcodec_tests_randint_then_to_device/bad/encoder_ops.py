import torch


class StreamingEncoder:
    """Minimal stand-in for a multi-stream video encoder."""

    def __init__(self, path, container):
        self.path = path
        self.container = container
        self.video_streams = []
        self.frame_shape = None

    def add_video_stream(self, frame_rate):
        self.video_streams.append({"frame_rate": frame_rate})

    def add_frames(self, frames: torch.Tensor):
        if not self.video_streams:
            raise RuntimeError("No video stream was added")
        if frames.dtype != torch.uint8 or frames.ndim != 4:
            raise RuntimeError("frames must be a uint8 tensor of shape (N, C, H, W)")
        if self.frame_shape is None:
            self.frame_shape = tuple(frames.shape[1:])
        elif tuple(frames.shape[1:]) != self.frame_shape:
            raise RuntimeError("All frames must have the same dimensions")
