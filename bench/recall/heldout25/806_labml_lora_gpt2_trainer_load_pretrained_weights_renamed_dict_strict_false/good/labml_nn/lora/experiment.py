"""Fine-tune GPT-2 with LoRA on Tiny Shakespeare, starting from the Hugging Face GPT-2 weights."""
import torch
from labml import monit, tracker
from labml.configs import BaseConfigs
from labml_helpers.device import DeviceConfigs
from torch.optim import Adam
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM

from labml_nn.lora.gpt2 import GPTModel

N_LAYERS = 12
# Hugging Face name -> our name, for the parameters outside the decoder blocks
TOP_LEVEL = {
    "transformer.wte.weight": "token_embedding.weight",
    "transformer.wpe.weight": "position_embedding.weight",
    "transformer.ln_f.weight": "final_norm.weight",
    "transformer.ln_f.bias": "final_norm.bias",
    "lm_head.weight": "lm_head.weight",
}
# Hugging Face sub-name -> our sub-name, inside decoder block i
PER_BLOCK = {
    "ln_1": "pre_norm", "ln_2": "post_norm",
    "attn.c_attn": "attn.qkv_projection", "attn.c_proj": "attn.output_projection",
    "mlp.c_fc": "ffn.linear_in", "mlp.c_proj": "ffn.linear_out",
}
CONV1D = ("ffn.linear_in.weight", "ffn.linear_out.weight", "attn.qkv_projection.weight",
          "attn.output_projection.weight")


class Trainer(BaseConfigs):
    device: torch.device = DeviceConfigs()
    layer_norm_epsilon: float = 1e-05
    d_model: int = 768
    n_heads: int = 12
    n_positions: int = 1024
    vocab_size: int = 50257
    epochs: int = 10
    batch_size: int = 32
    learning_rate: float = 1e-4
    lora_r: int = 32
    text: TensorDataset = "tiny_shakespeare"
    model: GPTModel
    optimizer: torch.optim.Adam
    loss_func = torch.nn.CrossEntropyLoss()
    data_loader: DataLoader

    def _load_pretrained_weights(self):
        hf_model = AutoModelForCausalLM.from_pretrained("gpt2")
        state_dict = hf_model.state_dict()

        mapping = dict(TOP_LEVEL)
        for i in range(N_LAYERS):
            for hf_name, our_name in PER_BLOCK.items():
                for kind in ("weight", "bias"):
                    mapping[f"transformer.h.{i}.{hf_name}.{kind}"] = f"blocks.{i}.{our_name}.{kind}"

        new_state_dict = {}
        for old_key, new_key in mapping.items():
            if old_key in state_dict:
                new_state_dict[new_key] = state_dict[old_key]

        # Hugging Face GPT-2 uses Conv1D layers: transpose them for our linear layers
        for i in range(N_LAYERS):
            for suffix in CONV1D:
                key = f"blocks.{i}.{suffix}"
                new_state_dict[key] = torch.transpose(new_state_dict[key], 0, 1)

        # strict=False because the checkpoint has no LoRA weights
        missing_keys, unexpected_keys = self.model.load_state_dict(new_state_dict, strict=False)
        # only the LoRA weights may be missing
        assert all("lora" in key for key in missing_keys)
        assert not unexpected_keys

    def initialize(self):
        self.model = GPTModel(layer_norm_epsilon=self.layer_norm_epsilon, d_model=self.d_model, n_layers=N_LAYERS,
                              n_heads=self.n_heads, n_positions=self.n_positions, vocab_size=self.vocab_size,
                              r=self.lora_r)
        self.model.to(self.device)
        self._load_pretrained_weights()
        self.optimizer = Adam(self.model.parameters(), lr=self.learning_rate)
        self.data_loader = DataLoader(self.text, batch_size=self.batch_size, shuffle=True)

    def run(self):
        for _ in monit.loop(self.epochs):
            for (inputs,) in monit.iterate("Train", self.data_loader):
                inputs = inputs.to(self.device)
                logits = self.model(inputs[:, :-1])
                loss = self.loss_func(logits.reshape(-1, logits.shape[-1]), inputs[:, 1:].reshape(-1))
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                tracker.save({"loss.train": loss})
            tracker.new_line()
