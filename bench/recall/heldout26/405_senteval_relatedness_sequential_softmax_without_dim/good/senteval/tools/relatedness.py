"""Semantic relatedness (SICK-R, STS-Benchmark): regress a score distribution from sentence-pair features."""
import copy

import numpy as np
import torch
import torch.optim as optim
from scipy.stats import pearsonr
from torch import nn


class RelatednessPytorch(object):
    def __init__(self, train, valid, test, devscores, config):
        np.random.seed(config['seed'])
        torch.manual_seed(config['seed'])
        assert torch.cuda.is_available(), 'torch.cuda required for Relatedness'
        torch.cuda.manual_seed(config['seed'])

        self.train = train
        self.valid = valid
        self.test = test
        self.devscores = devscores

        self.inputdim = train['X'].shape[1]
        self.nclasses = config['nclasses']
        self.seed = config['seed']
        self.l2reg = 0.
        self.batch_size = 64
        self.maxepoch = 1000
        self.early_stop = True

        self.model = nn.Sequential(
            nn.Linear(self.inputdim, self.nclasses),
            nn.Softmax(dim=1),
        )
        self.loss_fn = nn.MSELoss(reduction='sum')

        if torch.cuda.is_available():
            self.model = self.model.cuda()
            self.loss_fn = self.loss_fn.cuda()

        self.optimizer = optim.Adam(self.model.parameters(), weight_decay=self.l2reg)

    def prepare_data(self, trainX, trainy, devX, devy, testX, testy):
        trainX = torch.FloatTensor(trainX).cuda()
        trainy = torch.FloatTensor(trainy).cuda()
        devX = torch.FloatTensor(devX).cuda()
        devy = torch.FloatTensor(devy).cuda()
        testX = torch.FloatTensor(testX).cuda()
        return trainX, trainy, devX, devy, testX, testy

    def run(self):
        self.nepoch = 0
        bestpr = -1
        early_stop_count = 0
        r = np.arange(1, 6)
        stop_train = False

        trainX, trainy, devX, devy, testX, testy = self.prepare_data(
            self.train['X'], self.train['y'], self.valid['X'], self.valid['y'],
            self.test['X'], self.test['y'])

        while not stop_train and self.nepoch <= self.maxepoch:
            self.trainepoch(trainX, trainy, nepoches=50)
            yhat = np.dot(self.predict_proba(devX), r)
            pr = pearsonr(yhat, self.devscores)[0]
            if pr > bestpr:
                bestpr = pr
                bestmodel = copy.deepcopy(self.model)
            elif self.early_stop:
                if early_stop_count >= 3:
                    stop_train = True
                early_stop_count += 1
        self.model = bestmodel

        yhat = np.dot(self.predict_proba(testX), r)
        return bestpr, yhat

    def trainepoch(self, X, y, nepoches=1):
        self.model.train()
        for _ in range(self.nepoch, self.nepoch + nepoches):
            permutation = np.random.permutation(len(X))
            for i in range(0, len(X), self.batch_size):
                idx = torch.from_numpy(permutation[i:i + self.batch_size]).long().cuda()
                Xbatch = X.index_select(0, idx)
                ybatch = y.index_select(0, idx)
                output = self.model(Xbatch)
                loss = self.loss_fn(output, ybatch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        self.nepoch += nepoches

    def predict_proba(self, devX):
        self.model.eval()
        probas = []
        with torch.no_grad():
            for i in range(0, len(devX), self.batch_size):
                probas.append(self.model(devX[i:i + self.batch_size]).cpu().numpy())
        return np.concatenate(probas, axis=0)
