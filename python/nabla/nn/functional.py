"""nabla.nn.functional: the C++ ops that layers are made of, one call each."""
from .._nabla.functional import (conv2d, cross_entropy, dropout, linear, log_softmax, max_pool2d,  # noqa: F401
                                 mse_loss, relu, softmax)
