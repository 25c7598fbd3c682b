import os
import sys

sys.path.append("..")
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score, roc_auc_score

from model import TFC, target_classifier
from utils.augmentations import data_transform_masked4cl


def build_model(args, lr, configs, device, chkpoint=None):
    model = TFC(configs, args).to(device)
    if chkpoint:
        state = model.state_dict()
        state.update(chkpoint["model_state_dict"])
        model.load_state_dict(state)
    classifier = target_classifier(configs).to(device)
    model_optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(configs.beta1, configs.beta2), weight_decay=0)
    classifier_optimizer = torch.optim.Adam(classifier.parameters(), lr=lr, betas=(configs.beta1, configs.beta2),
                                            weight_decay=0)
    model_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer=model_optimizer, T_max=args.finetune_epoch)
    return model, classifier, model_optimizer, classifier_optimizer, model_scheduler


def Trainer(model, model_optimizer, model_scheduler, train_dl, valid_dl, test_dl, device, logger, args, configs,
            experiment_log_dir, seed):
    logger.debug("Pre-training started ....")
    os.makedirs(os.path.join(experiment_log_dir, "saved_models"), exist_ok=True)
    best_performance = None
    for epoch in range(1, args.pretrain_epoch + 1):
        total_loss, total_cl_loss, total_rb_loss = model_pretrain(model, model_optimizer, model_scheduler, train_dl,
                                                                  configs, args, device)
        logger.debug(f"Pre-training Epoch: {epoch}\t Train Loss: {total_loss:.4f}\t CL Loss: {total_cl_loss:.4f}"
                     f"\t RB Loss: {total_rb_loss:.4f}")
        chkpoint = {"seed": seed, "epoch": epoch, "train_loss": total_loss, "model_state_dict": model.state_dict()}
        torch.save(chkpoint, os.path.join(experiment_log_dir, "saved_models", f"ckp_ep{epoch}.pt"))

        if epoch % 2 == 0:
            logger.debug("Fine-tuning started ....")
            ft_model, ft_classifier, ft_model_optimizer, ft_classifier_optimizer, ft_scheduler = build_model(
                args, args.lr, configs, device, chkpoint)
            for ep in range(1, args.finetune_epoch + 1):
                valid_loss, valid_acc, F1 = model_finetune(ft_model, valid_dl, device, ft_model_optimizer,
                                                           ft_scheduler, classifier=ft_classifier,
                                                           classifier_optimizer=ft_classifier_optimizer)
                if ep % args.log_epoch == 0:
                    logger.debug(f"Epoch : {ep} | finetune Loss: {valid_loss:.4f} | Acc: {valid_acc:2.4f} | F1: {F1:0.4f}")
                    performance = model_test(ft_model, test_dl, device, classifier=ft_classifier)
                    if best_performance is None or performance[0] > best_performance[0]:
                        best_performance = performance
                        torch.save(chkpoint, os.path.join(experiment_log_dir, "saved_models", "ckp_best.pt"))
            logger.debug("Fine-tuning ended ....")
    return best_performance


def model_pretrain(model, model_optimizer, model_scheduler, train_loader, configs, args, device):
    total_loss, total_cl_loss, total_rb_loss = [], [], []
    model.train()
    for data, labels in train_loader:
        data_masked_m, mask = data_transform_masked4cl(data, args.masking_ratio, args.lm, args.positive_nums)
        data_masked_om = torch.cat([data, data_masked_m], 0).float().to(device)
        loss, loss_cl, loss_rb = model(data_masked_om, pretrain=True)

        model_optimizer.zero_grad()
        loss.backward()
        model_optimizer.step()

        total_loss.append(loss.item())
        total_cl_loss.append(loss_cl.item())
        total_rb_loss.append(loss_rb.item())
    model_scheduler.step()
    return (torch.tensor(total_loss).mean(), torch.tensor(total_cl_loss).mean(), torch.tensor(total_rb_loss).mean())


def model_finetune(model, val_dl, device, model_optimizer, model_scheduler, classifier=None, classifier_optimizer=None):
    model.train()
    classifier.train()
    total_loss, total_acc = [], []
    criterion = nn.CrossEntropyLoss()
    labels_numpy = pred_numpy = None

    for data, labels in val_dl:
        data, labels = data.float().to(device), labels.long().to(device)
        h, z = model(data)
        predictions = classifier(h)
        loss = criterion(predictions, labels)

        total_acc.append(labels.eq(predictions.detach().argmax(dim=1)).float().mean().item())
        total_loss.append(loss.item())

        loss.backward()
        model_optimizer.step()  # expect: TCK102
        classifier_optimizer.step()  # expect: TCK102

        labels_numpy = labels.cpu().numpy()
        pred_numpy = predictions.detach().argmax(dim=1).cpu().numpy()

    F1 = f1_score(labels_numpy, pred_numpy, average="macro")
    mean_loss = torch.tensor(total_loss).mean()
    model_scheduler.step(mean_loss)
    return mean_loss, torch.tensor(total_acc).mean(), F1


def model_test(model, test_dl, device, classifier=None):
    model.eval()
    classifier.eval()
    labels_all, preds_all = [], []
    with torch.no_grad():
        for data, labels in test_dl:
            h, z = model(data.float().to(device))
            preds_all.append(classifier(h).argmax(dim=1).cpu().numpy())
            labels_all.append(labels.numpy())
    labels_all, preds_all = np.concatenate(labels_all), np.concatenate(preds_all)
    return (accuracy_score(labels_all, preds_all), precision_score(labels_all, preds_all, average="macro"),
            recall_score(labels_all, preds_all, average="macro"), f1_score(labels_all, preds_all, average="macro"))
