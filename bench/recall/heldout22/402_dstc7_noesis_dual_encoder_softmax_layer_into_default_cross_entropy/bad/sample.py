import argparse
import logging

import torch
from torch.nn import CrossEntropyLoss

from dataset import Dataset
from dual_encoder import DualEncoder, Encoder
from evaluator import Evaluator
from supervised_trainer import SupervisedTrainer

parser = argparse.ArgumentParser()
parser.add_argument("--expt_dir", default="./experiment")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--log-level", dest="log_level", default="info")
opt = parser.parse_args()

logging.basicConfig(format="%(asctime)s %(name)-12s %(levelname)-8s %(message)s",
                    level=getattr(logging, opt.log_level.upper()))

train = Dataset.synthetic(512, seed=0)
dev = Dataset.synthetic(128, seed=1)

loss_func = CrossEntropyLoss()
hidden_size = 128
context_encoder = Encoder(train.vocab_size, hidden_size, bidirectional=True)
response_encoder = Encoder(train.vocab_size, hidden_size, bidirectional=True)
dual_encoder = DualEncoder(context_encoder, response_encoder)
if torch.cuda.is_available():
    dual_encoder.cuda()
for param in dual_encoder.parameters():
    param.data.uniform_(-0.08, 0.08)

t = SupervisedTrainer(loss_func=loss_func, batch_size=16, checkpoint_every=10, print_every=10, expt_dir=opt.expt_dir)
t.train(dual_encoder, train, batch_size=16, num_epochs=opt.epochs, dev_data=dev)

evaluator = Evaluator(batch_size=16)
loss, accuracy, recall = evaluator.evaluate(dual_encoder, dev)
print("Dev loss: {:.4f}, accuracy: {:.4f}, recall: {}".format(loss, accuracy, recall))
