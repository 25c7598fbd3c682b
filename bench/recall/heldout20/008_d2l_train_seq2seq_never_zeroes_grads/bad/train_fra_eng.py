import torch

from d2l import torch as d2l


def synthetic_pairs(n=640, num_steps=10, vocab_size=200, batch_size=64):
    g = torch.Generator().manual_seed(0)
    src = torch.randint(3, vocab_size, (n, num_steps), generator=g)
    tgt = torch.randint(3, vocab_size, (n, num_steps), generator=g)
    src_len = torch.randint(2, num_steps + 1, (n,), generator=g)
    tgt_len = torch.randint(2, num_steps + 1, (n,), generator=g)
    dataset = torch.utils.data.TensorDataset(src, src_len, tgt, tgt_len)
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)


if __name__ == '__main__':
    embed_size, num_hiddens, num_layers, dropout = 32, 32, 2, 0.1
    lr, num_epochs = 0.005, 300
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    train_iter = synthetic_pairs()
    tgt_vocab = {'<pad>': 0, '<bos>': 1, '<eos>': 2}
    encoder = d2l.Seq2SeqEncoder(200, embed_size, num_hiddens, num_layers, dropout)
    decoder = d2l.Seq2SeqDecoder(200, embed_size, num_hiddens, num_layers, dropout)
    net = d2l.EncoderDecoder(encoder, decoder)
    d2l.train_seq2seq(net, train_iter, lr, num_epochs, tgt_vocab, device)
