"""Score a fine-tuned BrainOmni on held-out EEG windows; two passes should agree."""
import torch

from braindecode.models import BrainOmni

model = BrainOmni(n_chans=22, n_outputs=4, n_times=1000, drop_prob=0.1)
model.load_state_dict(torch.load("brainomni_finetuned.pt", map_location="cpu", weights_only=True))
model.eval()

x = torch.randn(8, 22, 1000)
with torch.no_grad():
    first = model(x)
    second = model(x)
print("max difference between two eval passes:", (first - second).abs().max().item())
