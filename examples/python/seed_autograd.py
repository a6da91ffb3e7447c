"""The lecture's "PyTorch: Autograd" seed on nabla, from Python: the PyTorch
program with `torch` replaced by `nabla` (examples/seed_autograd.cpp is the C++ twin).

  x 64x1000, y 64x10, w1 1000x100, w2 100x10 (randn, w requires grad)
  y_pred = x.mm(w1).clamp(min=0).mm(w2); loss = (y_pred - y).pow(2).sum()
  loss.backward(); under no_grad: w -= 1e-6 * w.grad; grads zeroed

Run: PYTHONPATH=build/release/python python3 examples/python/seed_autograd.py [steps=500]
"""
import sys

import nabla

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 500
N, D_in, H, D_out = 64, 1000, 100, 10
nabla.manual_seed(0)
x = nabla.randn([N, D_in])
y = nabla.randn([N, D_out])
w1 = nabla.randn([D_in, H], requires_grad=True)
w2 = nabla.randn([H, D_out], requires_grad=True)

learning_rate = 1e-6
for t in range(steps):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t == 0:
        first_loss = loss.item()
    if t % 100 == 0 or t == steps - 1:
        print(f"step {t:4d}  loss {loss.item():.6g}")

    loss.backward()
    with nabla.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
print(f"first_loss={first_loss:.6g} final_loss={loss.item():.6g} ratio={loss.item() / first_loss:.3g}")
