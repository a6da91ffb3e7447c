"""nabla.graph: static graphs run by Sessions, TensorFlow 1's way (docs/python.md)."""
from ._nabla.graph import Graph, Session, assign, assign_add, assign_sub, gradients, group  # noqa: F401
