import numpy as np
import torch


def text_to_sequence(text):
    return [min(ord(c), 63) for c in text.lower()]


def tts(model, text, max_steps=200):
    """Greedy autoregressive synthesis of a mel spectrogram for one sentence."""
    model.eval()
    device = next(model.parameters()).device
    seq = torch.tensor([text_to_sequence(text)], device=device)
    frame = torch.zeros(1, 1, model.mel_dim * model.r, device=device)
    mels, aligns = [], []
    with torch.no_grad():
        for _ in range(max_steps):
            mel, done, align = model(seq, frame)
            mels.append(mel[:, -1:])
            aligns.append(align[:, -1:])
            frame = torch.cat([frame, mel[:, -1:]], dim=1)
            if done[0, -1] > 0.5:
                break
    mel = torch.cat(mels, dim=1).view(-1, model.mel_dim).cpu().numpy()
    alignment = torch.cat(aligns, dim=1)[0].cpu().numpy()
    return mel, alignment
