import torch
import torch.nn as nn

from e2e.model.listener import Listener

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
listener = Listener(input_size=80, hidden_dim=256).to(device)
classifier = nn.Linear(512, 2000).to(device)
optimizer = torch.optim.Adam(list(listener.parameters()) + list(classifier.parameters()), lr=1e-4)
criterion = nn.CTCLoss(blank=0, zero_infinity=True)

for step in range(100):
    feats = torch.randn(8, 400, 80, device=device)
    feat_lengths = torch.full((8,), 400, dtype=torch.int32, device=device)
    targets = torch.randint(1, 2000, (8, 30), device=device)
    output, _ = listener(feats, feat_lengths)
    log_probs = classifier(output).log_softmax(dim=-1).transpose(0, 1)
    out_lengths = torch.full((8,), log_probs.size(0), dtype=torch.int32)
    loss = criterion(log_probs, targets, out_lengths, torch.full((8,), 30, dtype=torch.int32))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
