import numpy as np


class StreamSegMetrics(object):
    """Confusion-matrix based segmentation scores accumulated over a stream of batches."""

    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.confusion_matrix = np.zeros((n_classes, n_classes))

    def update(self, label_trues, label_preds):
        for lt, lp in zip(label_trues, label_preds):
            mask = (lt >= 0) & (lt < self.n_classes)
            hist = np.bincount(self.n_classes * lt[mask].astype(int) + lp[mask],
                               minlength=self.n_classes ** 2).reshape(self.n_classes, self.n_classes)
            self.confusion_matrix += hist

    def get_results(self):
        hist = self.confusion_matrix
        acc = np.diag(hist).sum() / hist.sum()
        iu = np.diag(hist) / (hist.sum(axis=1) + hist.sum(axis=0) - np.diag(hist))
        return {"Overall Acc": acc, "Mean IoU": np.nanmean(iu), "Class IoU": dict(enumerate(iu))}

    @staticmethod
    def to_str(results):
        return "\n".join("%s: %s" % (k, v) for k, v in results.items() if k != "Class IoU")

    def reset(self):
        self.confusion_matrix = np.zeros((self.n_classes, self.n_classes))
