import numpy as np
import torch


class SpectrogramParser:
    def __init__(self, audio_conf, normalize=False):
        self.window_size = audio_conf["window_size"]
        self.sample_rate = audio_conf["sample_rate"]
        self.normalize = normalize

    def load_audio(self, path):
        rng = np.random.default_rng(abs(hash(path)) % (2 ** 32))
        return rng.standard_normal(self.sample_rate * 2).astype("float32")

    def parse_audio(self, audio_path):
        y = torch.from_numpy(self.load_audio(audio_path))
        n_fft = int(self.sample_rate * self.window_size)
        stft = torch.stft(y, n_fft=n_fft, hop_length=n_fft // 2, window=torch.hamming_window(n_fft), return_complex=True)
        spect = torch.log1p(stft.abs())
        if self.normalize:
            spect = (spect - spect.mean()) / spect.std()
        return spect
