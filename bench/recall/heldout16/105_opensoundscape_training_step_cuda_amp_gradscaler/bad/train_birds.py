import torch
from torch.utils.data import TensorDataset

from opensoundscape.cnn import SpectrogramClassifier

classes = ["robin", "wren", "jay"]
spectrograms = torch.randn(512, 1, 128, 128)
labels = torch.randint(0, 2, (512, len(classes))).float()

model = SpectrogramClassifier(classes=classes, sample_duration=3.0)
model.use_amp = torch.cuda.is_available()
model.train(TensorDataset(spectrograms, labels), epochs=5, batch_size=64, num_workers=2)
print(model.predict(spectrograms[:4]))
