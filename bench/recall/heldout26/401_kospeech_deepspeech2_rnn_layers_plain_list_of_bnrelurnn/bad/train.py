"""Train DeepSpeech2 with CTC and save the weights."""
import torch
import torch.nn as nn

from kospeech.models.deepspeech2 import DeepSpeech2

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = DeepSpeech2(input_size=80, num_classes=2000, num_rnn_layers=3, rnn_hidden_dim=256, device=device).to(device)
criterion = nn.CTCLoss(blank=0, zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

for step in range(100):
    feats = torch.randn(4, 400, 80, device=device)
    feat_lens = torch.full((4,), 400, dtype=torch.long, device=device)
    targets = torch.randint(1, 2000, (4, 30), device=device)
    target_lens = torch.full((4,), 30, dtype=torch.long)

    log_probs, out_lens = model(feats, feat_lens)
    loss = criterion(log_probs.transpose(0, 1), targets, out_lens, target_lens)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

torch.save(model.state_dict(), "deepspeech2.pt")
