#include "nabla/ops/kernel_registry.h"

#include <array>
#include <mutex>
#include <sstream>

namespace nabla {
namespace {

// One row of kernels per op, found through the op's slot (OpDef::kernel_slot,
// given at the op's first registration): a lookup is two loads, no hashing,
// on every eager op. Rows never move (a fixed array), so lookups need no lock.
constexpr int kGeneric = kNumDeviceTypes;
constexpr std::size_t kMaxOps = 1024;
using KernelRow = std::array<KernelFn, kNumDeviceTypes + 1>;
using BoxedRow = std::array<BoxedKernelFn, kNumDeviceTypes>;

std::array<KernelRow, kMaxOps>& rows() {
  static std::array<KernelRow, kMaxOps> r{};
  return r;
}
// Boxed kernels per op and device (a backend's table-driven kernels).
std::array<BoxedRow, kMaxOps>& boxed_rows() {
  static std::array<BoxedRow, kMaxOps> r{};
  return r;
}

std::array<BoxedKernelFn, kNumDeviceTypes>& fallbacks() {
  static std::array<BoxedKernelFn, kNumDeviceTypes> f{};
  return f;
}

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}

std::size_t slot_of(const OpDef& op) {
  static int next = 0;
  if (op.kernel_slot < 0) {
    NABLA_CHECK(next < static_cast<int>(kMaxOps), "register_kernel: more than ", kMaxOps, " ops have kernels");
    op.kernel_slot = static_cast<int16_t>(next++);
  }
  return static_cast<std::size_t>(op.kernel_slot);
}

KernelRow& row_of(const OpDef& op) { return rows()[slot_of(op)]; }

void put(const OpDef& op, int column, KernelFn kernel) {
  std::lock_guard lock(registry_mutex());
  row_of(op)[static_cast<std::size_t>(column)] = kernel;
}

}  // namespace

void register_kernel(const OpDef& op, DeviceType device, KernelFn kernel) { put(op, static_cast<int>(device), kernel); }
void register_generic_kernel(const OpDef& op, KernelFn kernel) { put(op, kGeneric, kernel); }
KernelRegistrar::KernelRegistrar(DeviceType device, std::initializer_list<OpKernel> kernels) {
  for (const OpKernel& k : kernels) register_kernel(k.op, device, k.kernel);
}
void register_boxed_kernel(const OpDef& op, DeviceType device, BoxedKernelFn kernel) {
  std::lock_guard lock(registry_mutex());
  boxed_rows()[slot_of(op)][static_cast<std::size_t>(device)] = kernel;
}

void register_fallback(DeviceType device, BoxedKernelFn fallback) {
  std::lock_guard lock(registry_mutex());
  fallbacks()[static_cast<std::size_t>(device)] = fallback;
}

KernelFn find_kernel(const OpDef& op, DeviceType device) {
  const int slot = op.kernel_slot;
  if (slot >= 0) {
    const KernelRow& r = rows()[static_cast<std::size_t>(slot)];
    if (KernelFn k = r[static_cast<std::size_t>(device)]) return k;
    if (KernelFn k = r[kGeneric]) return k;
  }
  return nullptr;
}

bool has_device_kernel(const OpDef& op, DeviceType device) {
  const int slot = op.kernel_slot;
  if (slot < 0) return false;
  const auto s = static_cast<std::size_t>(slot), d = static_cast<std::size_t>(device);
  return rows()[s][d] != nullptr || boxed_rows()[s][d] != nullptr;
}

KernelRef kernel_for(const OpDef& op, Device device, DType dtype, const char* suffix) {
  const int slot = op.kernel_slot;
  if (slot >= 0) [[likely]] {
    const auto s = static_cast<std::size_t>(slot), d = static_cast<std::size_t>(device.type);
    if (KernelFn k = rows()[s][d]) [[likely]]
      return {k, nullptr};
    if (BoxedKernelFn b = boxed_rows()[s][d]) return {nullptr, b};
    if (KernelFn k = rows()[s][kGeneric]) return {k, nullptr};
  }
  if (BoxedKernelFn f = fallbacks()[static_cast<std::size_t>(device.type)]) return {nullptr, f};
  std::ostringstream have;
  for (int t = 0; t < kNumDeviceTypes; ++t)
    if (has_device_kernel(op, static_cast<DeviceType>(t))) have << (have.tellp() > 0 ? ", " : "") << DeviceTypeName(static_cast<DeviceType>(t));
  const std::string have_text = have.str();
  fail(op.name, suffix, ": no kernel for ", dtype, " on ", device, " (", DeviceTypeName(device.type),
       " has no kernel for this op; it has kernels on: ", have_text.empty() ? "no device" : have_text,
       "); move the inputs with .to(device)");
}

}  // namespace nabla
