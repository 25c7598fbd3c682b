from x_transformers.x_transformers import AttentionLayers, Decoder, Encoder
