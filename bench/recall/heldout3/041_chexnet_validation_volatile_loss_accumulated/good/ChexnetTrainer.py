import torch


class ChexnetTrainer:
    @staticmethod
    def epochVal(model, dataLoader, loss):
        model.eval()
        lossVal = 0
        lossValNorm = 0
        losstensorMean = 0
        with torch.no_grad():
            for i, (input, target) in enumerate(dataLoader):
                target = target.cuda(non_blocking=True)
                varOutput = model(input)
                losstensor = loss(varOutput, target)
                losstensorMean += losstensor.item()
                lossVal += losstensor.item()
                lossValNorm += 1
        return lossVal / lossValNorm, losstensorMean / lossValNorm
