import torch

from synth import SynthConfig, Voice


def render(n_batches, out_path):
    voice = Voice(SynthConfig(batch_size=32, buffer_size_seconds=1.0))
    if torch.cuda.is_available():
        voice = voice.to("cuda")
    train_audio, test_audio = [], []
    for batch_idx in range(n_batches):
        audio, params, is_train = voice(batch_idx)
        train_audio.append(audio[is_train].cpu())
        test_audio.append(audio[~is_train].cpu())
    torch.save({"train": torch.cat(train_audio), "test": torch.cat(test_audio)}, out_path)


if __name__ == "__main__":
    render(4, "voice_dataset.pt")
