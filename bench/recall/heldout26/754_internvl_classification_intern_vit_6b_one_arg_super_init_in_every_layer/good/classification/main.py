"""Linear probing of a frozen InternViT-6B on ImageNet: only the head is trained."""
import torch

from models import build_model

config = {
    "MODEL": {
        "TYPE": "intern_vit_6b",
        "NUM_CLASSES": 1000,
        "INTERN_VIT_6B": {
            "patch_size": 14, "img_size": 224, "embed_dim": 3200, "num_heads": 25, "depth": 48,
            "qkv_bias": False, "init_values": 0.1, "qk_normalization": True, "use_flash_attn": True,
            "with_cp": True, "freeze_vit": True, "cls_target": "cls_patch_concat", "head_norm_type": "ln",
        },
    },
}

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_model(config).to(device)
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
criterion = torch.nn.CrossEntropyLoss()

model.train()
for step in range(10):
    images = torch.randn(8, 3, 224, 224, device=device)
    targets = torch.randint(0, 1000, (8,), device=device)
    loss = criterion(model(images), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
