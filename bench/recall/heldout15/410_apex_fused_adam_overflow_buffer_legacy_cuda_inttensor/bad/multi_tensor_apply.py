class MultiTensorApply:
    """Calls a fused CUDA kernel on lists of tensors in chunks."""

    available = False
    warned = False

    def __init__(self, chunk_size):
        try:
            import amp_C  # noqa: F401
            MultiTensorApply.available = True
            self.chunk_size = chunk_size
        except ImportError as err:
            MultiTensorApply.available = False
            MultiTensorApply.import_err = err

    def __call__(self, op, noop_flag_buffer, tensor_lists, *args):
        return op(self.chunk_size, noop_flag_buffer, tensor_lists, *args)


multi_tensor_applier = MultiTensorApply(2048 * 32)
