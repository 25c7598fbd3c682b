from build_loader import build_dataloader


def non_dist_train(model, datasets, cfg, runner):
    data_loaders = [
        build_dataloader(ds, cfg.data.imgs_per_gpu, cfg.data.workers_per_gpu, cfg.gpus, dist=False, shuffle=True)
        for ds in datasets
    ]
    runner.run(data_loaders, cfg.workflow, cfg.total_epochs)
