from .multitalk import InfiniteTalkPipeline
