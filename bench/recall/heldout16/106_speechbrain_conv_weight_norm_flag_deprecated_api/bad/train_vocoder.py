import torch
import torch.nn.functional as F

from speechbrain.hifigan import HifiganGenerator

device = "cuda" if torch.cuda.is_available() else "cpu"
generator = HifiganGenerator().to(device)
optimizer = torch.optim.AdamW(generator.parameters(), lr=2e-4, betas=(0.8, 0.99))

for step in range(1000):
    mel = torch.randn(4, 32, 80, device=device)
    target = torch.randn(4, 32 * 256, 1, device=device)
    audio = generator(mel)
    loss = F.l1_loss(audio, target[:, : audio.shape[1]])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

generator.eval()
generator.remove_weight_norm()
torch.save(generator.state_dict(), "generator.ckpt")
