import contextlib

import torch
import torch.nn.functional as F


def zero_shot_classifier(model, tokenizer, classnames, templates, device, amp=True):
    ctx = torch.amp.autocast("cuda") if amp else contextlib.nullcontext()
    with torch.no_grad(), ctx:
        weights = []
        for classname in classnames:
            texts = tokenizer([t.format(c=classname) for t in templates]).to(device)
            emb = F.normalize(model.encode_text(texts), dim=-1).mean(dim=0)
            weights.append(emb / emb.norm())
        return torch.stack(weights, dim=1)


def run_classification(model, classifier, dataloader, device, amp=True):
    model.eval()
    preds, trues = [], []
    with torch.no_grad():
        for images, target in dataloader:
            images = images.to(device)
            if amp:
                with torch.amp.autocast("cuda"):
                    logits = 100.0 * F.normalize(model.encode_image(images), dim=-1) @ classifier
            else:
                logits = 100.0 * F.normalize(model.encode_image(images), dim=-1) @ classifier
            preds.append(logits.argmax(dim=-1).cpu())
            trues.append(target)
    return torch.cat(preds), torch.cat(trues)
