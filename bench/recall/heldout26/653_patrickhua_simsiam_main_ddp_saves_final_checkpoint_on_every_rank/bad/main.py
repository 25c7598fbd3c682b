import os

import torch
import torchvision
import torchvision.transforms as T
from tqdm import tqdm

from configs import get_args
from linear_eval import main as linear_eval
from models import get_model


class TwoCrops:

    def __init__(self, transform):
        self.transform = transform

    def __call__(self, x):
        return self.transform(x), self.transform(x)


def main(args):
    aug = T.Compose([T.RandomResizedCrop(32, scale=(0.2, 1.0)), T.RandomHorizontalFlip(),
                     T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8), T.RandomGrayscale(p=0.2),
                     T.ToTensor()])
    train_set = torchvision.datasets.CIFAR10(args.data_dir, train=True, transform=TwoCrops(aug), download=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                               num_workers=args.num_workers, pin_memory=True, drop_last=True)

    model = get_model(args.model, args.backbone).to(args.device)

    if args.local_rank >= 0:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend='nccl', init_method='env://')
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[args.local_rank], output_device=args.local_rank)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr * args.batch_size / 256,
                                momentum=args.momentum, weight_decay=args.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.num_epochs * len(train_loader))

    global_progress = tqdm(range(0, args.stop_at_epoch), desc='Training')
    for epoch in global_progress:
        model.train()
        for idx, ((images1, images2), labels) in enumerate(train_loader):
            model.zero_grad()
            loss = model(images1.to(args.device), images2.to(args.device))
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
        global_progress.set_postfix({'epoch': epoch, 'loss': loss.item()})

    # save checkpoint
    os.makedirs(args.output_dir, exist_ok=True)
    model_path = os.path.join(args.output_dir, f'{args.model}-{args.dataset}-epoch{epoch + 1}.pth')
    torch.save({  # expect: TCK208
        'epoch': epoch + 1,
        'state_dict': model.state_dict(),
        'args': args,
    }, model_path)
    print(f'Model saved to {model_path}')

    if args.eval_after_train is not None:
        args.eval_from = model_path
        linear_eval(args)


if __name__ == '__main__':
    main(args=get_args())
