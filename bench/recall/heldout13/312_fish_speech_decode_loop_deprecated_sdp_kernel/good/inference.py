import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from llama import Transformer


def sample(logits, temperature=0.7, top_k=30):
    logits = logits / max(temperature, 1e-5)
    v, _ = torch.topk(logits, top_k)
    logits = torch.where(logits < v[..., -1:], torch.full_like(logits, -float("inf")), logits)
    return torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1)


def decode_one_token(model, x, input_pos, mask):
    logits = model(x, input_pos=input_pos, mask=mask)
    return sample(logits[:, -1])


def decode_n_tokens(model, cur_token, input_pos, num_new_tokens, max_seq_len, eos_id):
    new_tokens = []
    causal = torch.tril(torch.ones(max_seq_len, max_seq_len, dtype=torch.bool, device=cur_token.device))
    for _ in range(num_new_tokens):
        # the math backend is the one that supports an explicit mask on every GPU
        with sdpa_kernel(SDPBackend.MATH):
            next_token = decode_one_token(model, cur_token, input_pos, causal[None, None, input_pos]).clone()
        input_pos += 1
        cur_token = next_token.view(1, -1)
        new_tokens.append(next_token)
        if cur_token[0, -1] == eos_id:
            break
    return torch.cat(new_tokens, dim=1)


@torch.inference_mode()
def generate(model, prompt, max_new_tokens, eos_id=2):
    device = prompt.device
    input_pos = torch.arange(prompt.size(1), device=device)
    first = sample(model(prompt[None], input_pos=input_pos)[:, -1])
    input_pos = torch.tensor([prompt.size(1)], device=device)
    rest = decode_n_tokens(model, first, input_pos, max_new_tokens - 1, prompt.size(1) + max_new_tokens, eos_id)
    return torch.cat([first, rest], dim=1)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Transformer().to(device).eval()
    print(generate(model, torch.randint(0, 4096, (16,), device=device), max_new_tokens=32).shape)
