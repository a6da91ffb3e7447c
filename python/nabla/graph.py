"""nabla.graph: static graphs run by Sessions, TensorFlow 1's way, and saved graphs (.nbg) (docs/python.md)."""
from ._nabla.graph import Graph, Session, assign, assign_add, assign_sub, gradients, group, load  # noqa: F401
