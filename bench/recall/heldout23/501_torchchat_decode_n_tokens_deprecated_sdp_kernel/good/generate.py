import argparse

import torch
import torch.nn.attention

from model import ModelArgs, Transformer


def sample(logits, temperature: float = 1.0, top_k=None):
    logits = logits[0, -1] / max(temperature, 1e-5)
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        logits = torch.where(logits < v[-1], torch.full_like(logits, -float("Inf")), logits)
    probs = torch.softmax(logits, dim=-1)
    idx_next = torch.multinomial(probs, num_samples=1)
    return idx_next, probs


def prefill(model, x, input_pos, **sampling_kwargs):
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)[0]


def decode_one_token(model, x, input_pos, **sampling_kwargs):
    assert input_pos.shape[-1] == 1
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)


def decode_n_tokens(model, cur_token, input_pos, num_new_tokens: int, **sampling_kwargs):
    new_tokens, new_probs = [], []
    for _ in range(num_new_tokens):
        # the math kernel lets the compiler generate the attention itself
        with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
            next_token, next_prob = decode_one_token(model, cur_token, input_pos, **sampling_kwargs)
        input_pos += 1
        new_tokens.append(next_token.clone())
        new_probs.append(next_prob.clone())
        cur_token = next_token.view(1, -1)
    return new_tokens, new_probs


@torch.no_grad()
def generate(model, prompt, max_new_tokens: int, **sampling_kwargs):
    t = prompt.size(0)
    device = prompt.device
    seq = torch.empty(t + max_new_tokens, dtype=prompt.dtype, device=device)
    seq[:t] = prompt
    input_pos = torch.arange(0, t, device=device)
    next_token = prefill(model, prompt.view(1, -1), input_pos, **sampling_kwargs)
    seq[t] = next_token
    input_pos = torch.tensor([t], device=device, dtype=torch.int)
    generated, _ = decode_n_tokens(model, next_token.view(1, -1), input_pos, max_new_tokens - 1, **sampling_kwargs)
    seq[t + 1:] = torch.cat(generated)
    return seq


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--top-k", type=int, default=50)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Transformer(ModelArgs()).to(device).eval()
    prompt = torch.randint(0, 512, (8,), device=device)
    out = generate(model, prompt, args.max_new_tokens, temperature=args.temperature, top_k=args.top_k)
    print(out.tolist())


if __name__ == "__main__":
    main()
