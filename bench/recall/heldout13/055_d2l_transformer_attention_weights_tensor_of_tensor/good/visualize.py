import torch

import d2l
from transformer import TransformerDecoder


def predict_seq2seq(decoder, enc_outputs, bos, num_steps):
    decoder.eval()
    dec_x = torch.tensor([[bos]], device=enc_outputs.device)
    output_seq, attention_weight_seq = [], []
    with torch.no_grad():
        for _ in range(num_steps):
            y = decoder(dec_x, enc_outputs)
            dec_x = y.argmax(dim=2)
            output_seq.append(dec_x.squeeze(0).item())
            attention_weight_seq.append(decoder.attention_weights)
    return output_seq, attention_weight_seq


if __name__ == "__main__":
    decoder = TransformerDecoder(vocab_size=200, num_hiddens=32, num_layers=2, dropout=0.1)
    enc_outputs = torch.randn(1, 10, 32)
    _, dec_attention_weight_seq = predict_seq2seq(decoder, enc_outputs, bos=1, num_steps=6)
    dec_attention_weights_2d = [
        head[0].tolist()
        for step in dec_attention_weight_seq
        for attn in step
        for blk in attn
        for head in blk
    ]
    print(len(dec_attention_weights_2d))
