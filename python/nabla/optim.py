"""nabla.optim: the C++ optimizers, with PyTorch's keyword arguments (lr=, betas=, weight_decay=, ...)."""
from ._nabla.optim import SGD, Adam, AdamW, Optimizer  # noqa: F401
