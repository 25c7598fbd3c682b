import torch

from models.video_tokenizer import VideoTokenizer
from utils import save_training_state


def main(config, loader, steps, compile_model=True):
    model = VideoTokenizer(**config).cuda()
    if compile_model:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step, frames in zip(range(steps), loader):
        loss = model(frames.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    save_training_state(model, optimizer, steps, "checkpoints/video_tokenizer.pth")
