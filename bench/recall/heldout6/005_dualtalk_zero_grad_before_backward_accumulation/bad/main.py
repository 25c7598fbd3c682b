import torch


def trainer(args, train_loader, model, optimizer, criterion, epoch):
    loss_log = []
    model.train()
    for i, (audio, speaker, listener, target) in enumerate(train_loader):
        audio, speaker, target = audio.cuda(), speaker.cuda(), target.cuda()
        prediction = model(audio, speaker, listener)
        loss = criterion(prediction, target)
        optimizer.zero_grad()  # expect: TCK111
        loss.backward()
        loss_log.append(loss.item())
        if i % args.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return sum(loss_log) / len(loss_log)
