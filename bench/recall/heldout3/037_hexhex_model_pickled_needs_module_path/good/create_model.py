import torch

from hexconvolution import NoMCTSModel


def create_model(config):
    model = NoMCTSModel(board_size=config.board_size, layers=config.layers,
                        intermediate_channels=config.intermediate_channels)
    model_file = f"models/{config.model_name}.pt"
    torch.save({'model_state_dict': model.state_dict(), 'config': vars(config)}, model_file)
    print(f"wrote {model_file}")
