from wenet.transformer.asr_model import ASRModel
from wenet.utils.checkpoint import load_checkpoint


def init_model(args, configs):
    model = ASRModel(input_dim=configs["input_dim"], vocab_size=configs["output_dim"], **configs["model_conf"])
    # If a checkpoint is given, resume from it and read the saved step/epoch
    if args.checkpoint is not None:
        infos = load_checkpoint(model, args.checkpoint)
    else:
        infos = {}
    configs["init_infos"] = infos
    return model, configs
