output_features = 2048
max_answers = 3000
