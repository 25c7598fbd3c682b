import torch

from hifigan import Generator


@torch.inference_mode()
def vocode(checkpoint_path, mel):
    generator = Generator()
    state = torch.load(checkpoint_path, map_location="cpu", weights_only=True)
    generator.load_state_dict(state["generator"])
    generator.eval()
    generator.remove_weight_norm()
    return generator(mel).squeeze(1)


if __name__ == "__main__":
    mel = torch.randn(1, 80, 200)
    torch.save({"generator": Generator().state_dict()}, "hifigan.ckpt")
    audio = vocode("hifigan.ckpt", mel)
    print(audio.shape)
