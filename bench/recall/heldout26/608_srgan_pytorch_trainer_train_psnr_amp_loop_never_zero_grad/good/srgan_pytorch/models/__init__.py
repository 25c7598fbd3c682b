from .generator import Generator


def srgan(pretrained=False, **kwargs):
    model = Generator(**kwargs)
    if pretrained:
        raise NotImplementedError("pre-trained weights are downloaded by the release scripts")
    return model
