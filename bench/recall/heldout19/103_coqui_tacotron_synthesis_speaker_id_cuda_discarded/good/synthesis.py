import numpy as np
import torch


def text_to_seqvec(text, char_to_id, use_cuda):
    seq = np.asarray([char_to_id.get(ch, 0) for ch in text.lower()], dtype=np.int32)
    chars_var = torch.from_numpy(seq).unsqueeze(0)
    if use_cuda:
        chars_var = chars_var.cuda()
    return chars_var.long()


def run_model(model, inputs, speaker_id=None):
    return model.inference(inputs, speaker_ids=speaker_id)


def parse_outputs(postnet_output, decoder_output, alignments):
    postnet_output = postnet_output[0].data.cpu().numpy()
    decoder_output = decoder_output[0].data.cpu().numpy()
    alignment = alignments[0].cpu().data.numpy()
    return postnet_output, decoder_output, alignment


def id_to_torch(speaker_id):
    if speaker_id is not None:
        speaker_id = np.asarray(speaker_id)
        speaker_id = torch.from_numpy(speaker_id).unsqueeze(0)
    return speaker_id


def synthesis(model, text, char_to_id, use_cuda, ap, speaker_id=None):
    """Synthesize a waveform for `text`, optionally for one speaker of a multi-speaker model."""
    inputs = text_to_seqvec(text, char_to_id, use_cuda)
    speaker_id = id_to_torch(speaker_id)
    if use_cuda:
        speaker_id = speaker_id.cuda()
    decoder_output, postnet_output, alignments, stop_tokens = run_model(model, inputs, speaker_id)
    postnet_output, decoder_output, alignment = parse_outputs(postnet_output, decoder_output, alignments)
    wav = ap.inv_mel_spectrogram(postnet_output.T)
    return wav, alignment, decoder_output, postnet_output, stop_tokens
