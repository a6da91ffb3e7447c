"""nabla.nn: Modules in Python over nabla's C++ ops (nabla.nn.functional).

A Module registers the Parameters and Modules assigned to its attributes (or
given to register_parameter / add_module); calling it runs forward(), as in
PyTorch. The layers below are Modules like any user's subclass.
"""
import math
from collections import OrderedDict

from .. import _nabla
from . import functional
from .._nabla import Tensor


class Parameter(Tensor):
    """A tensor that a Module registers as a parameter; it requires grad."""

    def __init__(self, data, requires_grad=True):
        super().__init__(data.detach())
        self.requires_grad_(requires_grad)


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise _nabla.Error(f"nn.Module: assign {name!r} after calling super().__init__() in "
                               f"{type(self).__name__}.__init__")
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, name, param)
        if param is None:
            self._parameters[name] = None

    def add_module(self, name, module):
        setattr(self, name, module)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        for name, m in self._modules.items():
            yield from m.named_parameters(prefix + name + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def children(self):
        return list(self._modules.values())

    def state_dict(self):
        return OrderedDict((name, p.detach()) for name, p in self.named_parameters())

    def load_state_dict(self, state):
        own = dict(self.named_parameters())
        missing = sorted(set(own) - set(state))
        unexpected = sorted(set(state) - set(own))
        if missing or unexpected:
            raise _nabla.Error(f"{type(self).__name__}.load_state_dict: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
        for name, p in own.items():
            if tuple(state[name].shape) != tuple(p.shape):
                raise _nabla.Error(f"{type(self).__name__}.load_state_dict: {name} has shape "
                                   f"{tuple(state[name].shape)}, the module's is {tuple(p.shape)}")
        with _no_grad():
            for name, p in own.items():
                p.copy_(state[name])

    def to(self, target):
        """Moves (a device: "opencl:0", nabla.device(...)) or converts (a dtype) every parameter, in place.

        The Parameter objects stay the same (their tensors change), so build
        optimizers after moving, as in PyTorch. Returns self.
        """
        convert = (lambda t: t.to(target)) if isinstance(target, _nabla.dtype) else (lambda t: t.to(str(target)))
        with _no_grad():
            for p in self.parameters():
                requires_grad, grad = p.requires_grad, p.grad
                p._set_data(convert(p.detach()))
                p.requires_grad_(requires_grad)
                if grad is not None:
                    p.grad = convert(grad)
        return self

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def __repr__(self):
        lines = [f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def extra_repr(self):
        return ""


class _no_grad:
    def __enter__(self):
        self._prev = _nabla.is_grad_enabled()
        _nabla.set_grad_enabled(False)

    def __exit__(self, *exc):
        _nabla.set_grad_enabled(self._prev)


def _uniform(shape, bound):
    return _nabla.rand(shape) * (2 * bound) - bound


class Linear(Module):
    """y = x @ weight.T + bias; PyTorch's initialization (uniform in +-1/sqrt(in_features))."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(_uniform([out_features, in_features], bound))
        self.register_parameter("bias", Parameter(_uniform([out_features], bound)) if bias else None)

    def forward(self, x):
        return functional.linear(x, self.weight, self.bias if self.bias is not None else Tensor())

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        pair = (lambda v: list(v) if isinstance(v, (tuple, list)) else [v, v])
        self.kernel_size, self.stride, self.padding = pair(kernel_size), pair(stride), pair(padding)
        bound = 1.0 / math.sqrt(in_channels * self.kernel_size[0] * self.kernel_size[1])
        self.weight = Parameter(_uniform([out_channels, in_channels] + self.kernel_size, bound))
        self.register_parameter("bias", Parameter(_uniform([out_channels], bound)) if bias else None)

    def forward(self, x):
        return functional.conv2d(x, self.weight, self.bias if self.bias is not None else Tensor(),
                                 stride=self.stride, padding=self.padding)


class ReLU(Module):
    def forward(self, x):
        return x.relu()


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):  # noqa: A002
        return functional.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):  # noqa: A002
        return functional.cross_entropy(input, target, reduction=self.reduction)


mse_loss = functional.mse_loss
cross_entropy = functional.cross_entropy
