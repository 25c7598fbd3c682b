import torch

from hexconvolution import NoMCTSModel


def create_model(config):
    model = NoMCTSModel(board_size=config.board_size, layers=config.layers,
                        intermediate_channels=config.intermediate_channels)
    model_file = f"models/{config.model_name}.pt"
    torch.save(model, model_file)  # expect: TCK402
    print(f"wrote {model_file}")
