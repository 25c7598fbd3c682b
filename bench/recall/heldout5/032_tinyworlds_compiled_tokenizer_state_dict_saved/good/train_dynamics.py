from utils import load_videotokenizer_from_checkpoint


def main(config):
    tokenizer = load_videotokenizer_from_checkpoint("checkpoints/video_tokenizer.pth", config["tokenizer"])
    tokenizer.eval()
    return tokenizer
