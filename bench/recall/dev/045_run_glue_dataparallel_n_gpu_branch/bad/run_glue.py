import torch
from torch.utils.data import DataLoader, RandomSampler
from tqdm import tqdm, trange


def train(args, train_dataset, model):
    args.train_batch_size = args.per_gpu_train_batch_size * max(1, args.n_gpu)
    train_dataloader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset), batch_size=args.train_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    # multi-gpu training
    if args.n_gpu > 1:
        model = torch.nn.DataParallel(model)  # expect: TCK204

    model.zero_grad()
    for _ in trange(int(args.num_train_epochs), desc="Epoch"):
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            outputs = model(input_ids=batch[0], attention_mask=batch[1], labels=batch[3])
            loss = outputs[0]
            if args.n_gpu > 1:
                loss = loss.mean()  # mean() to average on multi-gpu parallel training
            loss.backward()
            optimizer.step()
            model.zero_grad()
