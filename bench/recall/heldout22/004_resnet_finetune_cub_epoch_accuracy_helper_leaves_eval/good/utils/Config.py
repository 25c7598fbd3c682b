class Config:
    data_path = "./data/cub200"
    model_save_path = "./model_save"
    expansion = 4
