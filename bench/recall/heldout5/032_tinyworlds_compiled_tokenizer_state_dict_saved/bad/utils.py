import torch


def save_training_state(model, optimizer, step, path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)  # expect: TCK405


def load_videotokenizer_from_checkpoint(path, config):
    from models.video_tokenizer import VideoTokenizer

    tokenizer = VideoTokenizer(**config)
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    tokenizer.load_state_dict(checkpoint["model"])
    return tokenizer
