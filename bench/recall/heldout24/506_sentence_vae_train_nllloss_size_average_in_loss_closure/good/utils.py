import torch


def to_var(x):
    if torch.cuda.is_available():
        x = x.cuda()
    return x


def idx2word(idx, i2w, pad_idx):
    sentences = []
    for sent in idx:
        words = []
        for word_id in sent.tolist():
            if word_id == pad_idx:
                break
            words.append(i2w[str(word_id)])
        sentences.append(" ".join(words))
    return sentences
