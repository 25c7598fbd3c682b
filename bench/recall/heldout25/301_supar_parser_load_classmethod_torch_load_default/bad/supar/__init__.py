from .parser import Parser
from .models.dep import BiaffineDependencyParser

PARSER = {parser.NAME: parser for parser in [BiaffineDependencyParser]}

SRC = {
    "github": "https://github.com/yzhangcs/parser/releases/download/v1.1.0",
}
NAME = {
    "dep-biaffine-en": "ptb.biaffine.dep.lstm.char",
    "dep-biaffine-zh": "ctb7.biaffine.dep.lstm.char",
}
MODEL = {src: {n: f"{link}/{m}.zip" for n, m in NAME.items()} for src, link in SRC.items()}
