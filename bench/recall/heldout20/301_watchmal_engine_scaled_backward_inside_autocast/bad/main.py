import hydra
import torch
from hydra.utils import instantiate


@hydra.main(config_path="config", config_name="resnet_train", version_base=None)
def main(config):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = instantiate(config.model).to(device)
    engine = instantiate(config.engine, model=model, rank=0, device=device, dump_path=config.dump_path)
    engine.configure_amp(config.get("amp", False))
    engine.configure_loss(config.loss)
    engine.configure_optimizers(config.optimizer)
    for name, loader_config in config.data_loaders.items():
        engine.data_loaders[name] = instantiate(loader_config)
    engine.train(**config.tasks.train)


if __name__ == "__main__":
    main()
