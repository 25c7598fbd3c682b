import argparse
import json

import torch

from data_loader import SpectrogramParser
from model import load_model


class GreedyDecoder:
    def __init__(self, labels, blank_index=0):
        self.labels = labels
        self.blank_index = blank_index

    def decode(self, probs, sizes):
        best = probs.argmax(-1)
        strings = []
        for seq, size in zip(best.tolist(), sizes.tolist()):
            chars, prev = [], None
            for idx in seq[:size]:
                if idx != prev and idx != self.blank_index:
                    chars.append(self.labels[idx])
                prev = idx
            strings.append("".join(chars))
        return strings


@torch.no_grad()
def transcribe(audio_path, parser, model, decoder, device):
    spect = parser.parse_audio(audio_path).contiguous()
    spect = spect.view(1, 1, spect.size(0), spect.size(1))
    spect.to(device)  # expect: TCK202
    input_sizes = torch.IntTensor([spect.size(3)]).int()
    out, output_sizes = model(spect, input_sizes)
    return decoder.decode(out, output_sizes)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="DeepSpeech transcription")
    ap.add_argument("--model-path", default="models/deepspeech_final.pth")
    ap.add_argument("--audio-path", default="audio.wav")
    ap.add_argument("--cuda", action="store_true")
    args = ap.parse_args()

    device = torch.device("cuda" if args.cuda else "cpu")
    model = load_model(device, args.model_path)
    decoder = GreedyDecoder(model.labels, blank_index=model.labels.index("_"))
    parser = SpectrogramParser(model.audio_conf, normalize=True)
    print(json.dumps({"output": transcribe(args.audio_path, parser, model, decoder, device)}))
