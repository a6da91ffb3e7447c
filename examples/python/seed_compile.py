"""The seed training step written once, as eager Python, and run two ways: eagerly
and through nabla.compile(), which traces the step once (forward, backward and
the Adam update) into a static graph and runs that graph at every later call
(examples/seed_compile.cpp is the C++ twin). Two twin models start from the
same weights; prints both losses, the time per step of each and how far apart
the twins end up.

Run: PYTHONPATH=build/release/python python3 examples/python/seed_compile.py [steps=200]
"""
import sys
import time

import nabla

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
N, D_in, H, D_out = 64, 1000, 100, 10
nabla.manual_seed(0)
x, y = nabla.randn([N, D_in]), nabla.randn([N, D_out])


def make_twin(state=None):
    model = nabla.nn.Sequential(nabla.nn.Linear(D_in, H), nabla.nn.ReLU(), nabla.nn.Linear(H, D_out))
    if state is not None:
        model.load_state_dict(state)
    return model, nabla.optim.Adam(model.parameters(), lr=1e-4)


eager_model, eager_opt = make_twin()
compiled_model, compiled_opt = make_twin(eager_model.state_dict())


def make_step(model, optimizer):
    def step(x, y):
        optimizer.zero_grad()
        loss = nabla.nn.functional.mse_loss(model(x), y, reduction="sum")
        loss.backward()
        optimizer.step()
        return loss
    return step


runs = {"eager": make_step(eager_model, eager_opt),
        "compiled": nabla.compile(make_step(compiled_model, compiled_opt))}
losses = {}
for name, step in runs.items():
    losses[name] = []
    start = time.perf_counter()
    for t in range(steps):
        losses[name].append(step(x, y).item())
    ms = (time.perf_counter() - start) * 1e3 / steps
    print(f"{name}: first_loss={losses[name][0]:.6g} final_loss={losses[name][-1]:.6g} ms_per_step={ms:.3f}")

loss_diff = max(abs(a - b) / max(abs(a), 1e-30) for a, b in zip(losses["eager"], losses["compiled"]))
param_diff = max((p - q).abs().max().item()
                 for p, q in zip(eager_model.parameters(), compiled_model.parameters()))
print(f"max_loss_rel_diff={loss_diff:.3g} max_param_diff={param_diff:.3g} traces={runs['compiled'].num_traces}")
