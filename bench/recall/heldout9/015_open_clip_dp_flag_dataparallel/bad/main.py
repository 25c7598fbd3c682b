import torch
import torch.distributed as dist
from torch import optim

from clip.model import build_model
from training.data import get_data
from training.scheduler import cosine_lr
from training.train import train


def main_worker(gpu, ngpus_per_node, args):
    args.gpu = gpu
    if args.distributed:
        dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url, world_size=args.world_size, rank=args.rank)
    model, preprocess_train, preprocess_val = build_model(args.model)
    model.cuda(args.gpu)
    if args.distributed and args.use_bn_sync:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu], find_unused_parameters=True)
    if args.dp:
        model = torch.nn.DataParallel(model, device_ids=args.multigpu)  # expect: TCK204

    data = get_data(args, (preprocess_train, preprocess_val))
    exclude = lambda n: "bn" in n or "ln" in n or "bias" in n or "logit_scale" in n
    named_parameters = list(model.named_parameters())
    gain_or_bias_params = [p for n, p in named_parameters if exclude(n) and p.requires_grad]
    rest_params = [p for n, p in named_parameters if not exclude(n) and p.requires_grad]
    optimizer = optim.AdamW(
        [{"params": gain_or_bias_params, "weight_decay": 0.0}, {"params": rest_params, "weight_decay": args.wd}],
        lr=args.lr,
        betas=(args.beta1, args.beta2),
        eps=args.eps,
    )
    total_steps = data["train"].dataloader.num_batches * args.epochs
    scheduler = cosine_lr(optimizer, args.lr, args.warmup, total_steps)
    scaler = torch.cuda.amp.GradScaler() if args.precision == "amp" else None
    for epoch in range(args.epochs):
        train(model, data, epoch, optimizer, scaler, scheduler, args)
