import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def optimizer_scheduler(optimizer, p):
    for param_group in optimizer.param_groups:
        param_group["lr"] = 0.01 / (1.0 + 10 * p) ** 0.75
    return optimizer


def set_model_mode(mode, models):
    for model in models:
        model.train(mode == "train")


def source_only(encoder, classifier, source_loader, target_loader, device, epochs):
    classifier_criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(list(encoder.parameters()) + list(classifier.parameters()), lr=0.01, momentum=0.9)
    for epoch in range(epochs):
        set_model_mode("train", [encoder, classifier])
        start_steps = epoch * len(source_loader)
        total_steps = epochs * len(target_loader)
        for batch_idx, ((source_image, source_label), _) in enumerate(zip(source_loader, target_loader)):
            p = float(batch_idx + start_steps) / total_steps
            source_image = torch.cat((source_image, source_image, source_image), 1).to(device)
            source_label = source_label.to(device)
            optimizer = optimizer_scheduler(optimizer, p)
            optimizer.zero_grad()
            class_pred = classifier(encoder(source_image))
            class_loss = classifier_criterion(class_pred, source_label)  # expect: TCK605
            class_loss.backward()
            optimizer.step()


def dann(encoder, classifier, discriminator, source_loader, target_loader, device, epochs):
    classifier_criterion = nn.CrossEntropyLoss()
    discriminator_criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(
        list(encoder.parameters()) + list(classifier.parameters()) + list(discriminator.parameters()),
        lr=0.01, momentum=0.9,
    )
    for epoch in range(epochs):
        set_model_mode("train", [encoder, classifier, discriminator])
        start_steps = epoch * len(source_loader)
        total_steps = epochs * len(target_loader)
        for batch_idx, ((source_image, source_label), (target_image, _)) in enumerate(zip(source_loader, target_loader)):
            p = float(batch_idx + start_steps) / total_steps
            alpha = 2.0 / (1.0 + np.exp(-10 * p)) - 1
            source_image = torch.cat((source_image, source_image, source_image), 1).to(device)
            source_label = source_label.to(device)
            target_image = target_image.to(device)
            combined_image = torch.cat((source_image, target_image), 0)

            optimizer = optimizer_scheduler(optimizer, p)
            optimizer.zero_grad()
            combined_feature = encoder(combined_image)
            source_feature = encoder(source_image)

            class_pred = classifier(source_feature)
            class_loss = classifier_criterion(class_pred, source_label)  # expect: TCK605

            domain_pred = discriminator(combined_feature, alpha)
            domain_label = torch.cat((
                torch.zeros(source_image.size(0), dtype=torch.long, device=device),
                torch.ones(target_image.size(0), dtype=torch.long, device=device),
            ))
            domain_loss = discriminator_criterion(domain_pred, domain_label)  # expect: TCK605

            total_loss = class_loss + domain_loss
            total_loss.backward()
            optimizer.step()
            if (batch_idx + 1) % 10 == 0:
                print(f"epoch {epoch} batch {batch_idx + 1}: class {class_loss.item():.4f} domain {domain_loss.item():.4f}")
