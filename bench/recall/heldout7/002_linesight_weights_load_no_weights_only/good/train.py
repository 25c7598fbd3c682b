from pathlib import Path

import torch

from agents.iqn import make_untrained_iqn_network

save_dir = Path("save") / "run_1"
accumulated_stats = {"cumul_number_frames_played": 0}

online_network, uncompiled_online_network = make_untrained_iqn_network(jit=True)
target_network, uncompiled_target_network = make_untrained_iqn_network(jit=True)
optimizer = torch.optim.RAdam(online_network.parameters(), lr=1e-4, eps=1e-4)
scaler = torch.amp.GradScaler("cuda")

try:
    online_network.load_state_dict(torch.load(save_dir / "weights1.torch", weights_only=True))
    target_network.load_state_dict(torch.load(save_dir / "weights2.torch", weights_only=True))
    print(" =====================     Learner weights loaded !     ============================")
except FileNotFoundError:
    print(" Learner could not load weights")

try:
    optimizer.load_state_dict(torch.load(save_dir / "optimizer1.torch", weights_only=True))
    scaler.load_state_dict(torch.load(save_dir / "scaler.torch", weights_only=True))
    print(" =========================     Optimizer loaded !     ================================")
except FileNotFoundError:
    print(" Could not load optimizer")
