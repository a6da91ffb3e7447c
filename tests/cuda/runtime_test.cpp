// The CUDA device runtime (kernels/cuda/) through the public API and the
// Backend interface: enumeration, the caching allocator's steady state and
// cache, copies in every direction (byte-exact, with offsets, synchronous and
// non-blocking from pinned memory), streams and events, memory statistics.
// They need a GPU and skip, saying why, without one. No CUDA kernel is used:
// tensors reach the device and come back through Backend::copy only.
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/cuda_test_util.h"
#include "nabla/core/caching_device_allocator.h"
#include "support/devices.h"
#include "support/error_message.h"

namespace nabla::testing {
namespace {

std::vector<uint8_t> random_bytes(std::size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(gen());
  return v;
}

// A device block that goes back to its allocator at the end of the scope.
struct DeviceBlock {
  DeviceBlock(Allocator* a, std::size_t n) : alloc(a), bytes(n), handle(a->allocate(n)) {}
  ~DeviceBlock() { alloc->deallocate(handle, bytes); }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  MemRef at(std::size_t offset) const { return {handle, offset, kCuda}; }
  Allocator* alloc;
  std::size_t bytes;
  void* handle;
};

MemRef host(void* p, std::size_t offset = 0) { return {p, offset, kCPU}; }

TEST(CudaRuntime, EnumeratesDevicesWithNameMemoryAndCapability) {
  NABLA_SKIP_WITHOUT_CUDA();
  EXPECT_TRUE(cuda::is_built());
  EXPECT_TRUE(cuda::unavailable_reason().empty()) << cuda::unavailable_reason();
  bool found = false;
  for (const DeviceInfo& d : devices()) {
    if (d.device != kCuda) continue;
    found = true;
    EXPECT_NE(d.name.find("compute capability"), std::string::npos) << d.name;
    EXPECT_GT(d.total_memory, 0);
    std::printf("cuda:0 is %s, %lld bytes\n", d.name.c_str(), static_cast<long long>(d.total_memory));
  }
  EXPECT_TRUE(found) << available_devices_text();
  EXPECT_EQ(cuda::device_count(), find_backend(DeviceType::CUDA)->device_count());
}

TEST(CudaRuntime, AbsentIndexIsAnErrorListingThePresentDevices) {
  NABLA_SKIP_WITHOUT_CUDA();
  const std::string msg = error_of([] { (void)ones({2}).to(Device("cuda:99")); });
  expect_error(msg, {"cuda:99", "cuda:0", "Tensor::to"});
  expect_error(error_of([] { (void)cuda::memory_stats(99); }), {"cuda::memory_stats", "cuda:99"});
}

TEST(CudaRuntime, TensorsRoundTripEveryDtype) {
  NABLA_SKIP_WITHOUT_CUDA();
  for (DType t : {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor x = remainder(arange(0, 37), 5).to(t);
    Tensor d = x.to(kCuda);
    EXPECT_EQ(d.device(), kCuda);
    EXPECT_EQ(d.dtype(), t);
    EXPECT_TRUE(equal(d.cpu(), x)) << t;
    // A contiguous view starts at a byte offset into the same block.
    EXPECT_TRUE(equal(d.slice(0, 3, 20).cpu(), x.slice(0, 3, 20))) << t;
  }
  EXPECT_THROW(ones({3}).to(kCuda).data_ptr<float>(), Error);  // device memory has no host pointer
}

TEST(CudaRuntime, CopiesAreByteExactInEveryDirectionWithOffsets) {
  NABLA_SKIP_WITHOUT_CUDA();
  Backend& b = backend_for(kCuda, "test");
  Allocator* a = b.allocator(0);
  const Queue q{kCuda, 0};
  for (std::size_t n : {std::size_t{1}, std::size_t{4097}, std::size_t{3} << 20}) {
    const std::vector<uint8_t> src = random_bytes(n + 64, static_cast<uint32_t>(n));
    DeviceBlock d1(a, n + 64), d2(a, n + 64);
    b.copy(d1.at(8), host(const_cast<uint8_t*>(src.data()), 3), n, q, false, nullptr);  // H2D
    b.copy(d2.at(16), d1.at(8), n, q, false, nullptr);                                  // D2D
    std::vector<uint8_t> back(n + 64, 0xAB);
    b.copy(host(back.data(), 5), d2.at(16), n, q, false, nullptr);  // D2H
    EXPECT_EQ(std::memcmp(back.data() + 5, src.data() + 3, n), 0) << n << " bytes";
    EXPECT_EQ(back[4], 0xAB);
    EXPECT_EQ(back[5 + n], 0xAB);  // nothing written past the copy
  }
}

TEST(CudaRuntime, NonBlockingCopiesFromAndToPinnedMemory) {
  NABLA_SKIP_WITHOUT_CUDA();
  Backend& b = backend_for(kCuda, "test");
  const std::size_t n = 8 << 20;
  const std::vector<uint8_t> bytes = random_bytes(n, 7);
  Tensor expected = from_blob(const_cast<uint8_t*>(bytes.data()), {static_cast<int64_t>(n)}, kUInt8).clone();
  Tensor d;
  {
    Tensor pinned = expected.pin_memory();
    ASSERT_TRUE(pinned.is_pinned());
    d = pinned.to(kCuda, /*non_blocking=*/true);
  }  // the host side is gone from here: the copy holds it until done
  cuda::synchronize();
  EXPECT_TRUE(equal(d.cpu(), expected));
  // Back into pinned memory without blocking; then D2D without blocking.
  Tensor back = empty({static_cast<int64_t>(n)}, dtype(kUInt8)).pin_memory();
  b.copy(host(mem_ref(back).handle), mem_ref(d), n, Queue{kCuda, 0}, true, back.impl()->storage);
  synchronize(kCuda);
  EXPECT_TRUE(equal(back, expected));
  DeviceBlock copy(b.allocator(0), n);
  b.copy(copy.at(0), mem_ref(d), n, Queue{kCuda, 0}, true, nullptr);
  std::vector<uint8_t> out(n);
  b.copy(host(out.data()), copy.at(0), n, Queue{kCuda, 0}, false, nullptr);  // same stream: after the D2D
  EXPECT_TRUE(out == bytes);  // (not EXPECT_EQ: it would print 8 MiB)
}

TEST(CudaRuntime, EventsOrderWorkAcrossStreams) {
  NABLA_SKIP_WITHOUT_CUDA();
  Backend& b = backend_for(kCuda, "test");
  const Queue side = b.new_queue(0);
  EXPECT_NE(side.id, 0);
  const std::size_t n = 32 << 20;  // long enough that an unordered read would see it unfinished
  Tensor src = (arange(0, static_cast<int64_t>(n / 4), 1, dtype(kInt32)) * 3).pin_memory();
  DeviceBlock staged(b.allocator(0), n), result(b.allocator(0), n);
  // Upload on the side stream, then order the default stream after it.
  b.copy(staged.at(0), host(mem_ref(src).handle), n, side, true, src.impl()->storage);
  Ref<Event> uploaded = b.record(side);
  b.wait(Queue{kCuda, 0}, *uploaded);
  b.copy(result.at(0), staged.at(0), n, Queue{kCuda, 0}, true, nullptr);
  Ref<Event> copied = b.record(Queue{kCuda, 0});
  copied->synchronize();
  EXPECT_TRUE(copied->query());
  EXPECT_TRUE(uploaded->query());  // the default stream waited for it
  Tensor out = empty({static_cast<int64_t>(n / 4)}, dtype(kInt32));
  b.copy(host(mem_ref(out).handle), result.at(0), n, Queue{kCuda, 0}, false, nullptr);
  EXPECT_TRUE(equal(out, src));
  // Events from another backend are refused.
  struct Foreign final : Event {
    void synchronize() override {}
    bool query() override { return true; }
  } foreign;
  expect_error(error_of([&] { b.wait(Queue{kCuda, 0}, foreign); }), {"cuda", "wait"});
  expect_error(error_of([&] { (void)b.record(Queue{kCuda, 1000}); }), {"cuda:0", "no queue 1000"});
}

// A loop of allocations of the same sizes asks the driver for nothing after
// its first iteration; empty_cache gives the cached blocks back.
TEST(CudaRuntime, CachingAllocatorSteadyStateAndEmptyCache) {
  NABLA_SKIP_WITHOUT_CUDA();
  cuda::empty_cache();
  Allocator* a = allocator_for(kCuda);
  const std::vector<std::size_t> sizes = {1, 100, 512, 4096, 5000, 1 << 20, (3 << 20) + 17, 64 << 20};
  auto step = [&] {
    std::vector<void*> blocks;
    for (std::size_t s : sizes) blocks.push_back(a->allocate(s));
    for (std::size_t i = 0; i < sizes.size(); ++i) a->deallocate(blocks[i], sizes[i]);
  };
  const cuda::MemoryStats start = cuda::memory_stats();
  step();
  const cuda::MemoryStats first = cuda::memory_stats();
  EXPECT_EQ(first.driver_allocations - start.driver_allocations, static_cast<int64_t>(sizes.size()));
  for (int i = 0; i < 50; ++i) step();
  const cuda::MemoryStats steady = cuda::memory_stats();
  EXPECT_EQ(steady.driver_allocations, first.driver_allocations);
  EXPECT_EQ(steady.bytes_reserved, first.bytes_reserved);
  EXPECT_EQ(steady.bytes_in_use, start.bytes_in_use);
  EXPECT_GE(steady.peak_bytes_reserved, steady.bytes_reserved);
  // Tensors too: a host -> device -> host round trip per step.
  Tensor x = arange(0, 10000, 1, dtype(kFloat32));
  for (int i = 0; i < 3; ++i) (void)x.to(kCuda).cpu();
  const int64_t before = cuda::memory_stats().driver_allocations;
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(equal(x.to(kCuda).cpu(), x));
  EXPECT_EQ(cuda::memory_stats().driver_allocations, before);
  // The cache goes back to the driver.
  const cuda::MemoryStats cached = cuda::memory_stats();
  EXPECT_GT(cached.bytes_reserved, cached.bytes_in_use);
  cuda::empty_cache();
  const cuda::MemoryStats emptied = cuda::memory_stats();
  EXPECT_EQ(emptied.bytes_reserved, emptied.bytes_in_use);
  EXPECT_GE(emptied.driver_frees, cached.driver_frees + static_cast<int64_t>(sizes.size()));
}

TEST(CudaRuntime, MemoryStatsCountBytesInUseBySizeClass) {
  NABLA_SKIP_WITHOUT_CUDA();
  Allocator* a = allocator_for(kCuda);
  const cuda::MemoryStats before = cuda::memory_stats();
  void* small = a->allocate(10);                       // 512-byte class
  void* large = a->allocate((std::size_t{1} << 20) + 1);  // 1 MiB + 128 KiB class
  const cuda::MemoryStats during = cuda::memory_stats();
  EXPECT_EQ(during.bytes_in_use - before.bytes_in_use, 512 + (1 << 20) + (1 << 17));
  a->deallocate(small, 10);
  a->deallocate(large, (std::size_t{1} << 20) + 1);
  EXPECT_EQ(cuda::memory_stats().bytes_in_use, before.bytes_in_use);
}

TEST(CudaRuntime, OutOfMemoryIsAClearErrorAfterEmptyingTheCache) {
  NABLA_SKIP_WITHOUT_CUDA();
  Allocator* a = allocator_for(kCuda);
  const int64_t failed = cuda::memory_stats().failed_allocations;
  try {
    a->allocate(std::size_t{1} << 50);  // a petabyte: beyond any device
    FAIL() << "expected an OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    expect_error(e.what(), {"cuda:0", "1125899906842624 bytes"});
  }
  // More than the free memory but less than the device's: the driver
  // refuses, the cache is emptied, the request retried once, then refused.
  int64_t total = 0;
  for (const DeviceInfo& d : devices())
    if (d.device == kCuda) total = d.total_memory;
  std::vector<void*> held;
  const std::size_t chunk = static_cast<std::size_t>(total / 4);
  EXPECT_THROW(
      {
        for (int i = 0; i < 4; ++i) held.push_back(a->allocate(chunk));  // 4 quarters never fit beside the context
      },
      OutOfMemoryError);
  for (void* p : held) a->deallocate(p, chunk);
  EXPECT_GT(cuda::memory_stats().failed_allocations, failed);
  cuda::empty_cache();
  // Afterwards the device works.
  Tensor x = arange(0, 100, 1, dtype(kFloat32));
  EXPECT_TRUE(equal(x.to(kCuda).cpu(), x));
}

// pin_memory() takes CUDA's page-locked memory (CUDA is the first device
// type with pinned memory), cached like device memory: cuMemHostAlloc costs
// milliseconds, and a DataLoader pins every batch.
TEST(CudaRuntime, PinnedMemoryIsHostAddressableAndCached) {
  NABLA_SKIP_WITHOUT_CUDA();
  auto* pinned = dynamic_cast<CachingDeviceAllocator*>(backend_for(kCuda, "test").pinned_allocator());
  ASSERT_NE(pinned, nullptr);
  Tensor x = arange(0, 1 << 16, 1, dtype(kFloat32));
  int64_t after_second = 0;
  for (int i = 0; i < 5; ++i) {
    Tensor p = x.pin_memory();
    EXPECT_TRUE(p.is_pinned());
    EXPECT_TRUE(pinned->owns(p.impl()->storage->handle()));
    EXPECT_TRUE(equal(p, x));  // host-addressable
    EXPECT_TRUE(equal(p.to(kCuda, /*non_blocking=*/true).cpu(), x));
    // Two blocks take turns: a non-blocking copy's source goes back to the
    // cache at the backend's next call after the copy is done.
    if (i == 1) after_second = pinned->stats().driver_allocations;
  }
  EXPECT_EQ(pinned->stats().driver_allocations, after_second);
  cuda::empty_cache();  // the pinned cache too
  EXPECT_EQ(pinned->stats().bytes_reserved, pinned->stats().bytes_in_use);
}

}  // namespace
}  // namespace nabla::testing
