import torch
from torch.utils.checkpoint import checkpoint

from model import TabTransformer


def transformer_predict(model, eval_xs, eval_ys, eval_position, device="cpu",
                        batch_size_inference=16, softmax_temperature=0.8, fp16_inference=False):
    def predict(batch_input, batch_label, temperature):
        with torch.no_grad():
            logits = model(batch_input.to(device), batch_label.to(device), single_eval_pos=eval_position)
        return logits / temperature

    model.to(device)
    model.eval()
    inputs = torch.split(eval_xs, batch_size_inference, dim=1)
    labels = torch.split(eval_ys, batch_size_inference, dim=1)
    outputs = []
    for batch_input, batch_label in zip(inputs, labels):
        if device == "cpu":
            output_batch = checkpoint(predict, batch_input, batch_label, softmax_temperature, use_reentrant=False)
        else:
            with torch.autocast("cuda", enabled=fp16_inference):
                output_batch = checkpoint(predict, batch_input, batch_label, softmax_temperature, use_reentrant=False)
        outputs.append(output_batch)
    return torch.softmax(torch.cat(outputs, dim=1), dim=-1)


if __name__ == "__main__":
    net = TabTransformer()
    xs = torch.randn(60, 32, 100)
    ys = torch.randint(0, 10, (60, 32))
    probs = transformer_predict(net, xs, ys, eval_position=40)
    print(probs.shape)
