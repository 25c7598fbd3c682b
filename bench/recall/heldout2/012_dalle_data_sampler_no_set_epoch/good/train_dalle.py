import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from dalle_pytorch import DALLE, DiscreteVAE
from dalle_pytorch.loader import TextImageDataset


def run(args, tokenizer, distributed, world_size, rank):
    ds = TextImageDataset(args.image_text_folder, text_len=args.text_seq_len, image_size=256, tokenizer=tokenizer)
    data_sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank) if distributed else None
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=not data_sampler, drop_last=True, sampler=data_sampler)
    vae = DiscreteVAE(image_size=256, num_layers=3)
    dalle = DALLE(dim=512, vae=vae, num_text_tokens=tokenizer.vocab_size, text_seq_len=args.text_seq_len, depth=args.depth, heads=8).cuda()
    opt = torch.optim.Adam(dalle.parameters(), lr=args.learning_rate)
    for epoch in range(args.epochs):
        if data_sampler:
            data_sampler.set_epoch(epoch)
        for i, (text, images) in enumerate(dl):
            text, images = text.cuda(), images.cuda()
            loss = dalle(text, images, return_loss=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(dalle.parameters(), args.clip_grad_norm)
            opt.step()
            opt.zero_grad()
            if i % 10 == 0:
                print(epoch, i, f"loss - {loss.item()}")
