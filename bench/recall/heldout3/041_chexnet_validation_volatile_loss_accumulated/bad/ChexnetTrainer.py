import torch
from torch.autograd import Variable


class ChexnetTrainer:
    @staticmethod
    def epochVal(model, dataLoader, loss):
        model.eval()
        lossVal = 0
        lossValNorm = 0
        losstensorMean = 0
        for i, (input, target) in enumerate(dataLoader):
            target = target.cuda(non_blocking=True)
            varInput = Variable(input, volatile=True)
            varTarget = Variable(target, volatile=True)
            varOutput = model(varInput)
            losstensor = loss(varOutput, varTarget)
            losstensorMean += losstensor  # expect: TCK101
            lossVal += losstensor.item()
            lossValNorm += 1
        return lossVal / lossValNorm, losstensorMean / lossValNorm
