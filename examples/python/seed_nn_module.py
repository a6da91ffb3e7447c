"""The lecture's "PyTorch: custom nn Modules" seed on nabla, from Python, fed by a
DataLoader (examples/seed_nn_module.cpp is the C++ twin): a TwoLayerNet Module
subclass trained on 64 random samples in shuffled batches of 8 with SGD
(lr 1e-4) and MSELoss(reduction="sum").

Run: PYTHONPATH=build/release/python python3 examples/python/seed_nn_module.py [epochs=10]
"""
import sys

import nabla
from nabla.data import DataLoader, TensorDataset


class TwoLayerNet(nabla.nn.Module):
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.linear1 = nabla.nn.Linear(D_in, H)
        self.linear2 = nabla.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.linear1(x).clamp(min=0)
        y_pred = self.linear2(h_relu)
        return y_pred


epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
N, D_in, H, D_out = 64, 1000, 100, 10
nabla.manual_seed(0)
x = nabla.randn([N, D_in])
y = nabla.randn([N, D_out])
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)

model = TwoLayerNet(D_in, H, D_out)
criterion = nabla.nn.MSELoss(reduction="sum")
optimizer = nabla.optim.SGD(model.parameters(), lr=1e-4)
for epoch in range(epochs):
    epoch_loss = 0.0
    for x_batch, y_batch in loader:
        y_pred = model(x_batch)
        loss = criterion(y_pred, y_batch)
        epoch_loss += loss.item()

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if epoch == 0:
        first_loss = epoch_loss
    print(f"epoch {epoch:3d}  loss {epoch_loss:.6g}")
print(f"first_loss={first_loss:.6g} final_loss={epoch_loss:.6g} ratio={epoch_loss / first_loss:.3g}")
