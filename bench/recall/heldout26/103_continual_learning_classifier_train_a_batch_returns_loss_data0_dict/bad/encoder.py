from torch import nn
from torch.nn import functional as F

import utils
from continual_learner import ContinualLearner
from linear_nets import MLP


class Classifier(ContinualLearner):
    """MLP classifier with EWC / SI penalties and optional replay of stored or generated samples."""

    def __init__(self, image_size, image_channels, classes, fc_layers=3, fc_units=1000, fc_drop=0, fc_bn=True):
        super().__init__()
        self.classes = classes
        self.label = "Classifier"
        self.replay_targets = "hard"
        self.KD_temp = 2.0
        self.flatten = utils.Flatten()
        self.fcE = MLP(input_size=image_channels * image_size ** 2, output_size=fc_units, layers=fc_layers - 1,
                       hid_size=fc_units, drop=fc_drop, batch_norm=fc_bn, final_nl=True)
        self.classifier = nn.Sequential(nn.Dropout(fc_drop), nn.Linear(fc_units, classes))

    def forward(self, x):
        return self.classifier(self.fcE(self.flatten(x)))

    def train_a_batch(self, x, y, x_=None, y_=None, scores_=None, rnt=0.5, active_classes=None):
        """One optimizer step on the current batch plus (a list of) replayed batches."""
        self.train()

        # current data
        if x is not None:
            y_hat = self(x)
            if active_classes is not None:
                class_entries = active_classes[-1] if type(active_classes[0]) == list else active_classes
                y_hat = y_hat[:, class_entries]
            predL = None if y is None else F.cross_entropy(y_hat, y)
            precision = None if y is None else (y == y_hat.max(1)[1]).sum().data[0] / x.size(0)
        else:
            precision = predL = None

        # replayed data
        if x_ is not None:
            n_replays = len(x_) if type(x_) == list else 1
            if not type(x_) == list:
                x_, y_, scores_ = [x_], [y_], [scores_]
                active_classes = [active_classes] if active_classes is not None else None
            loss_replay = [None] * n_replays
            predL_r = [None] * n_replays
            distilL_r = [None] * n_replays
            for replay_id in range(n_replays):
                y_hat = self(x_[replay_id])
                if active_classes is not None:
                    y_hat = y_hat[:, active_classes[replay_id]]
                if y_ is not None and y_[replay_id] is not None:
                    predL_r[replay_id] = F.cross_entropy(y_hat, y_[replay_id])
                if scores_ is not None and scores_[replay_id] is not None:
                    distilL_r[replay_id] = utils.loss_fn_kd(scores=y_hat, target_scores=scores_[replay_id],
                                                            T=self.KD_temp)
                loss_replay[replay_id] = predL_r[replay_id] if self.replay_targets == "hard" else distilL_r[replay_id]

        if x is None:
            loss_total = sum(loss_replay) / n_replays
        elif x_ is None:
            loss_total = predL
        else:
            loss_total = rnt * predL + (1 - rnt) * sum(loss_replay) / n_replays

        # regularisation terms of the ContinualLearner base class
        surrogate_loss = self.surrogate_loss(cuda=self._is_on_cuda())
        if self.si_c > 0:
            loss_total += self.si_c * surrogate_loss
        ewc_loss = self.ewc_loss(cuda=self._is_on_cuda())
        if self.ewc_lambda > 0:
            loss_total += self.ewc_lambda * ewc_loss

        self.optimizer.zero_grad()
        loss_total.backward()
        self.optimizer.step()

        return {
            "loss_total": loss_total.data[0],  # expect: TCK115
            "pred": predL.data[0] if predL is not None else 0,  # expect: TCK115
            "pred_r": sum(predL_r).data[0] / n_replays if (x_ is not None and predL_r[0] is not None) else 0,
            "distil_r": sum(distilL_r).data[0] / n_replays if (x_ is not None and distilL_r[0] is not None) else 0,
            "ewc": ewc_loss.data[0], "si_loss": surrogate_loss.data[0],  # expect: TCK115
            "precision": precision if precision is not None else 0.0,
        }
