import torch

from vgg16 import VGG16FasterRCNN


def random_batch(device, n_rois=64, n_classes=21):
    images = torch.randn(1, 3, 600, 800, device=device)
    boxes = torch.rand(n_rois, 4, device=device) * 400
    boxes[:, 2:] += boxes[:, :2]
    rois = torch.cat([torch.zeros(n_rois, 1, device=device), boxes], dim=1)
    labels = torch.randint(0, n_classes, (n_rois,), device=device)
    targets = torch.randn(n_rois, 4 * n_classes, device=device)
    return images, rois, labels, targets


def main(iters=1000):
    device = "cuda"
    classes = ["__background__"] + [f"class_{i}" for i in range(20)]
    model = VGG16FasterRCNN(classes)
    model.create_architecture()
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    model.train()
    for it in range(iters):
        images, rois, labels, targets = random_batch(device)
        _, _, loss = model(images, rois, labels, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        images, rois, _, _ = random_batch(device)
        cls_prob, bbox_pred, _ = model(images, rois)
    print(cls_prob.argmax(dim=1)[:10])


if __name__ == "__main__":
    main()
