import torch

from models import Seq2SeqModel
from sequence_generator import SequenceGenerator


def main():
    models = [Seq2SeqModel(1000, conv_decoder=False).cuda(), Seq2SeqModel(1000, conv_decoder=True).cuda()]
    for model, path in zip(models, ["lstm.pt", "fconv.pt"]):
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    generator = SequenceGenerator(models)
    src = torch.randint(3, 1000, (8, 20)).cuda()
    print(generator.generate(src))


if __name__ == "__main__":
    main()
