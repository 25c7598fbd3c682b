"""Record what the attention and feed-forward sub-layers of every block produce while generating."""
import torch
import torch.nn.functional as F
from mistral_common.protocol.instruct.messages import UserMessage
from mistral_common.protocol.instruct.request import ChatCompletionRequest
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

from mistral_inference.transformer import Transformer


def make_hook(store, name):
    def hook(module, inputs, output):
        store.setdefault(name, []).append(output.detach().cpu())
    return hook


def custom_generate(prompt_tokens, model, max_tokens, temperature, eos_id, activations):
    handles = []
    for idx, block in model.layers.items():
        handles.append(block.register_forward_hook(make_hook(activations, f"block_{idx}")))
        handles.append(block.attention.register_forward_hook(make_hook(activations, f"attn_{idx}")))
        handles.append(block.feed_forward.register_forward_hook(make_hook(activations, f"ffn_{idx}")))

    device = model.device
    input_ids = torch.tensor(prompt_tokens[0], device=device)
    out_tokens = []
    for _ in range(max_tokens):
        seqlens = [input_ids.numel()]
        with torch.no_grad():
            logits = model.forward(input_ids, seqlens=seqlens)  # expect: TCK105
        next_logits = logits[-1, :]
        if temperature > 0:
            next_token = torch.multinomial(F.softmax(next_logits / temperature, dim=-1), num_samples=1)
        else:
            next_token = next_logits.argmax(dim=-1, keepdim=True)
        out_tokens.append(next_token.item())
        if next_token.item() == eos_id:
            break
        input_ids = torch.cat([input_ids, next_token], dim=-1)

    for h in handles:
        h.remove()
    return out_tokens


if __name__ == "__main__":
    models_path = "/data/Mistral-7B"
    tokenizer = MistralTokenizer.from_file(f"{models_path}/tokenizer.model.v3")
    model = Transformer.from_folder(models_path, device="cuda:0" if torch.cuda.is_available() else "cpu")

    request = ChatCompletionRequest(messages=[UserMessage(content="Use 1, 2, 3 and 4 once each to make 24.")])
    tokens = tokenizer.encode_chat_completion(request).tokens

    activations = {}
    out = custom_generate([tokens], model, max_tokens=64, temperature=0.0,
                          eos_id=tokenizer.instruct_tokenizer.tokenizer.eos_id, activations=activations)
    print(tokenizer.decode(out))
    for name, outputs in sorted(activations.items()):
        print(name, len(outputs))
