import argparse
import logging
import os

import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm
from pytorch_pretrained_bert import BertForPreTraining, BertTokenizer
from pytorch_pretrained_bert.optimization import BertAdam

from lm_dataset import BERTDataset

logger = logging.getLogger(__name__)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_file", required=True)
    parser.add_argument("--bert_model", default="bert-base-uncased")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=3e-5)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()

    if args.local_rank == -1:
        if torch.cuda.device_count() > 1:
            raise SystemExit("several GPUs: launch with python -m torch.distributed.launch --nproc_per_node=N")
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        n_gpu = torch.cuda.device_count()
    else:
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
        n_gpu = 1
        torch.distributed.init_process_group(backend="nccl")
    logger.info("device %s n_gpu %d distributed %s", device, n_gpu, args.local_rank != -1)

    tokenizer = BertTokenizer.from_pretrained(args.bert_model, do_lower_case=True)
    train_dataset = BERTDataset(args.train_file, tokenizer, seq_len=args.max_seq_length)
    num_train_steps = len(train_dataset) // args.train_batch_size * args.num_train_epochs

    model = BertForPreTraining.from_pretrained(args.bert_model)
    model.to(device)
    if args.local_rank != -1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank])

    no_decay = ["bias", "LayerNorm.bias", "LayerNorm.weight"]
    grouped = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = BertAdam(grouped, lr=args.learning_rate, warmup=0.1, t_total=num_train_steps)

    sampler = RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset)
    loader = DataLoader(train_dataset, sampler=sampler, batch_size=args.train_batch_size)

    model.train()
    for epoch in range(args.num_train_epochs):
        if args.local_rank != -1:
            sampler.set_epoch(epoch)
        tr_loss = 0.0
        for step, batch in enumerate(tqdm(loader, desc="Iteration")):
            input_ids, input_mask, segment_ids, lm_label_ids, is_next = (t.to(device) for t in batch)
            loss = model(input_ids, segment_ids, input_mask, lm_label_ids, is_next)
            if n_gpu > 1:
                loss = loss.mean()
            loss.backward()
            tr_loss += loss.item()
            optimizer.step()
            optimizer.zero_grad()
        logger.info("epoch %d loss %.4f", epoch, tr_loss / (step + 1))

    if args.local_rank in (-1, 0):
        to_save = model.module if hasattr(model, "module") else model
        os.makedirs(args.output_dir, exist_ok=True)
        torch.save(to_save.state_dict(), os.path.join(args.output_dir, "pytorch_model.bin"))


if __name__ == "__main__":
    main()
