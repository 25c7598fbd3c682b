import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

import cogitare
from cogitare import Model

cogitare.seed(123)


class Model1(Model):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.tensor([0.0]))

    def forward(self, data):
        super().forward(data)
        return torch.mul(self.p, data[0])

    def loss(self, output, data):
        super().loss(output, data)
        return F.mse_loss(output, data[1], reduction="sum")


class TestModel(unittest.TestCase):
    data = [(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 4.0, 6.0])),
            (torch.tensor([2.0, 3.0, 4.0]), torch.tensor([4.0, 6.0, 8.0]))]

    def test_model(self):
        model = Model1()

        output = model(self.data[0])
        loss = model.loss(output, self.data[0])
        output2 = model.predict(self.data[0])

        self.assertLess(abs(loss.item() - 56), 0.001)
        self.assertTrue(torch.equal(output, output2))
        self.assertEqual(sum(model.evaluate(self.data[:1])), 56)

    def test_hook_sees_output(self):
        model = Model1()
        seen = []
        model.register_plugin(lambda **state: seen.append(state.get("output")), "before_backward", name="spy")
        model.learn(self.data, optim.SGD(model.parameters(), lr=0.01), max_epochs=1)
        self.assertEqual(len(seen), len(self.data))

    def test_learn(self):
        model = Model1()
        model.learn(self.data, optim.SGD(model.parameters(), lr=0.01), max_epochs=100)
        self.assertLess(sum(model.evaluate(self.data)), 1e-3)

    def test_metric_loss(self):
        model = Model1()

        output = model(self.data[0])
        loss = model.loss(output, self.data[0])

        self.assertEqual(loss.item(), model.metric_loss(output, self.data[0]))


if __name__ == "__main__":
    unittest.main()
