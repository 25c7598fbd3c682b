import pytest
import torch

from encoder_ops import StreamingEncoder

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


class TestStreamingEncoderOps:
    def _create_encoder(self, tmp_path, container):
        return StreamingEncoder(tmp_path / f"out.{container}", container)

    @pytest.mark.parametrize("device", DEVICES)
    def test_add_frames_different_sizes_errors(self, tmp_path, device):
        encoder = self._create_encoder(tmp_path, "mp4")
        encoder.add_video_stream(frame_rate=30.0)
        frames_256 = torch.randint(0, 256, (2, 3, 256, 256), dtype=torch.uint8).to(device)  # expect: TCK201
        frames_512 = torch.randint(0, 256, (2, 3, 512, 512), dtype=torch.uint8).to(device)  # expect: TCK201
        encoder.add_frames(frames_256)
        with pytest.raises(RuntimeError, match="same dimensions"):
            encoder.add_frames(frames_512)

    @pytest.mark.parametrize("device", DEVICES)
    def test_add_frames_without_stream_errors(self, tmp_path, device):
        encoder = self._create_encoder(tmp_path, "mp4")
        frames = torch.randint(0, 256, (5, 3, 64, 64), dtype=torch.uint8).to(device)  # expect: TCK201
        with pytest.raises(RuntimeError, match="No video stream"):
            encoder.add_frames(frames)
