"""SICK-Relatedness: encode both sentences, build |a-b| and a*b features, fit the relatedness head."""
import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import mean_squared_error

from senteval.tools.relatedness import RelatednessPytorch


class SICKRelatednessEval(object):
    def __init__(self, sick_data, seed=1111):
        self.seed = seed
        self.sick_data = sick_data

    def features(self, params, batcher, split):
        a = np.vstack([batcher(params, self.sick_data[split]['X_A'][i:i + params.batch_size])
                       for i in range(0, len(self.sick_data[split]['y']), params.batch_size)])
        b = np.vstack([batcher(params, self.sick_data[split]['X_B'][i:i + params.batch_size])
                       for i in range(0, len(self.sick_data[split]['y']), params.batch_size)])
        return np.c_[np.abs(a - b), a * b]

    def run(self, params, batcher):
        trainF = self.features(params, batcher, 'train')
        devF = self.features(params, batcher, 'dev')
        testF = self.features(params, batcher, 'test')
        config = {'seed': self.seed, 'nclasses': 5}
        clf = RelatednessPytorch(train={'X': trainF, 'y': self.encode_labels(self.sick_data['train']['y'])},
                                 valid={'X': devF, 'y': self.encode_labels(self.sick_data['dev']['y'])},
                                 test={'X': testF, 'y': self.encode_labels(self.sick_data['test']['y'])},
                                 devscores=self.sick_data['dev']['y'],
                                 config=config)
        devpr, yhat = clf.run()
        gold = self.sick_data['test']['y']
        return {'devpearson': devpr, 'pearson': pearsonr(yhat, gold)[0],
                'spearman': spearmanr(yhat, gold)[0], 'mse': mean_squared_error(yhat, gold)}

    def encode_labels(self, labels, nclass=5):
        """Spread a real-valued score over the two nearest integer classes (Tai et al.)."""
        Y = np.zeros((len(labels), nclass)).astype('float32')
        for j, y in enumerate(labels):
            for i in range(nclass):
                if i + 1 == np.floor(y) + 1:
                    Y[j, i] = y - np.floor(y)
                if i + 1 == np.floor(y):
                    Y[j, i] = np.floor(y) - y + 1
        return Y
