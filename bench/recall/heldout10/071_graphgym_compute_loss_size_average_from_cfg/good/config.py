from types import SimpleNamespace

cfg = SimpleNamespace(
    model=SimpleNamespace(loss_fun="cross_entropy", size_average="mean"),
    optim=SimpleNamespace(base_lr=0.01, max_epoch=50),
)
