import math
import torch
import torch.nn as nn

import model as lm_model


def run(args, corpus, train_epoch, evaluate):
    ntokens = len(corpus.dictionary)
    model = lm_model.RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout)
    criterion = nn.NLLLoss()
    best_val_loss = None
    for epoch in range(1, args.epochs + 1):
        train_epoch(model, criterion, epoch)
        val_loss = evaluate(model, criterion)
        if not best_val_loss or val_loss < best_val_loss:
            with open(args.save, "wb") as f:
                torch.save(model.state_dict(), f)
            best_val_loss = val_loss
    with open(args.save, "rb") as f:
        model.load_state_dict(torch.load(f, weights_only=True))
    test_loss = evaluate(model, criterion)
    print(f"test ppl {math.exp(test_loss):8.2f}")
