import torch

from modeling_bart import BartForConditionalGeneration

CONFIG = {"vocab_size": 1000, "d_model": 128, "heads": 4, "ffn_dim": 512, "dropout": 0.1,
          "encoder_layers": 2, "decoder_layers": 2, "max_positions": 256, "pad_id": 1}


def shift_tokens_right(labels, pad_id, start_id=2):
    shifted = labels.new_full(labels.shape, pad_id)
    shifted[:, 1:] = labels[:, :-1].clone()
    shifted[:, 0] = start_id
    return shifted.masked_fill(shifted == -100, pad_id)


def main(steps=200):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = BartForConditionalGeneration(CONFIG).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(steps):
        input_ids = torch.randint(3, CONFIG["vocab_size"], (16, 32), device=device)
        labels = torch.flip(input_ids, dims=[1])
        decoder_input_ids = shift_tokens_right(labels, CONFIG["pad_id"])
        model.train()
        loss, _ = model(input_ids, decoder_input_ids, labels=labels)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
