"""The lecture's "PyTorch: optim" seed on nabla, from Python: the PyTorch program
with `torch` replaced by `nabla` (examples/seed_nn_adam.cpp is the C++ twin).

  model = Sequential(Linear(1000, 100), ReLU(), Linear(100, 10)); loss_fn = MSELoss(reduction="sum")
  optimizer = Adam(model.parameters(), lr=1e-4)
  loss = loss_fn(model(x), y); optimizer.zero_grad(); loss.backward(); optimizer.step()

Run: PYTHONPATH=build/release/python python3 examples/python/seed_nn_adam.py [steps=500] [--device=opencl:0]
"""
import sys

import nabla

args = [a for a in sys.argv[1:] if not a.startswith("--device")]
device = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--device=")), "cpu")
steps = int(args[0]) if args else 500
N, D_in, H, D_out = 64, 1000, 100, 10
nabla.manual_seed(0)
x = nabla.randn([N, D_in]).to(device)
y = nabla.randn([N, D_out]).to(device)

model = nabla.nn.Sequential(
    nabla.nn.Linear(D_in, H),
    nabla.nn.ReLU(),
    nabla.nn.Linear(H, D_out),
).to(device)
loss_fn = nabla.nn.MSELoss(reduction="sum")

learning_rate = 1e-4
optimizer = nabla.optim.Adam(model.parameters(), lr=learning_rate)
for t in range(steps):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t == 0:
        first_loss = loss.item()
    if t % 100 == 0 or t == steps - 1:
        print(f"step {t:4d}  loss {loss.item():.6g}")

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"first_loss={first_loss:.6g} final_loss={loss.item():.6g} ratio={loss.item() / first_loss:.3g}")
