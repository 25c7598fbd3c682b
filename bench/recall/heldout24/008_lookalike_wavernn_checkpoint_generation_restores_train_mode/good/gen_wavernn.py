from pathlib import Path

from models.fatchord_version import WaveRNN
from utils import hparams as hp


def gen_testset(model: WaveRNN, test_set, samples, batched, target, overlap, save_path: Path):
    """Vocode the first `samples` test mels at the current step and write them next to the targets."""
    k = model.get_step() // 1000
    for i, (m, x) in enumerate(test_set, 1):
        if i > samples:
            break
        print(f"\n| Generating: {i}/{samples}")
        batch_str = f"gen_batched_target{target}_overlap{overlap}" if batched else "gen_NOT_BATCHED"
        save_str = str(save_path / f"{k}k_steps_{i}_{batch_str}.wav")
        _ = model.generate(m, save_str, batched, target, overlap, hp.mu_law)
