import torch

from hybrid_encoder import HybridEncoder


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = HybridEncoder(eval_spatial_size=(640, 640)).to(device).eval()
    if device == "cuda":
        encoder = encoder.half()
    dtype = torch.float16 if device == "cuda" else torch.float32
    feats = [torch.randn(1, c, 640 // s, 640 // s, device=device, dtype=dtype)
             for c, s in zip((512, 1024, 2048), (8, 16, 32))]
    with torch.no_grad():
        outs = encoder(feats)
    print([tuple(o.shape) for o in outs])
    print("pos_embed2 in state_dict:", "pos_embed2" in encoder.state_dict())


if __name__ == "__main__":
    main()
