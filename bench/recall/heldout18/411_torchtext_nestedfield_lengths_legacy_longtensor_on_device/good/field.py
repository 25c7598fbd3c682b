import torch


class NestedField:
    """Numericalises a batch of sentences, each a list of words, each a list of characters."""

    def __init__(self, char_vocab, pad_index=0, include_lengths=True, dtype=torch.long):
        self.char_vocab = char_vocab
        self.pad_index = pad_index
        self.include_lengths = include_lengths
        self.dtype = dtype

    def pad(self, minibatch):
        max_words = max(len(sentence) for sentence in minibatch)
        max_chars = max(len(word) for sentence in minibatch for word in sentence)
        padded, sentence_lengths, word_lengths = [], [], []
        for sentence in minibatch:
            rows, lens = [], []
            for word in sentence:
                ids = [self.char_vocab.get(c, 1) for c in word]
                lens.append(len(ids))
                rows.append(ids + [self.pad_index] * (max_chars - len(ids)))
            for _ in range(max_words - len(sentence)):
                rows.append([self.pad_index] * max_chars)
                lens.append(0)
            padded.append(rows)
            sentence_lengths.append(len(sentence))
            word_lengths.append(lens)
        return padded, sentence_lengths, word_lengths

    def process(self, batch, device=None):
        padded, sentence_lengths, word_lengths = self.pad(batch)
        padded_batch = torch.tensor(padded, dtype=self.dtype, device=device)
        if self.include_lengths:
            sentence_lengths = torch.tensor(sentence_lengths, dtype=self.dtype, device=device)
            word_lengths = torch.tensor(word_lengths, dtype=self.dtype, device=device)
            return padded_batch, sentence_lengths, word_lengths
        return padded_batch
