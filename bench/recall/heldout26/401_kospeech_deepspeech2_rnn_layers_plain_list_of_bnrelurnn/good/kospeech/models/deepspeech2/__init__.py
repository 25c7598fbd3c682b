from kospeech.models.deepspeech2.model import DeepSpeech2
