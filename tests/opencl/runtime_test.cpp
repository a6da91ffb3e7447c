// The OpenCL device runtime (kernels/opencl/runtime.cpp) through the public
// API: enumeration, copies both ways (offsets, strides, every dtype), the
// caching allocator's counts, out-of-memory errors, queues and events, pinned
// non-blocking copies.
#include <gtest/gtest.h>

#include "opencl/opencl_test_util.h"
#include "support/error_message.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

const Device kCL("opencl:0");

TEST(OpenCLRuntime, EnumeratesDevicesWithNameAndMemory) {
  NABLA_SKIP_WITHOUT_OPENCL();
  EXPECT_TRUE(opencl::is_built());
  EXPECT_GE(opencl::device_count(), 1);
  bool found = false;
  for (const DeviceInfo& d : devices()) {
    if (d.device != kCL) continue;
    found = true;
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.total_memory, 0);
    std::printf("opencl:0 is %s, %lld bytes\n", d.name.c_str(), static_cast<long long>(d.total_memory));
  }
  EXPECT_TRUE(found) << available_devices_text();
  EXPECT_NE(available_devices_text().find("opencl:0"), std::string::npos);
}

TEST(OpenCLRuntime, AbsentDeviceIsAnErrorListingThePresentOnes) {
  NABLA_SKIP_WITHOUT_OPENCL();
  try {
    ones({2}).to(Device("opencl:99"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("opencl:99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("opencl:0"), std::string::npos) << msg;
  }
}

// float16 moves to the device (copies take every dtype), but no kernel
// computes in it: a generated elementwise kernel and a reduction each say so,
// naming the op and the dtype (launch.h's check_dtype).
TEST(OpenCLRuntime, ADtypeWithoutAnOpenCLTypeIsAnErrorNamingTheOp) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Tensor h = ones({3}, dtype(kFloat16)).to(kCL);
  expect_error(error_of([&] { (void)(h + h); }), {"add", "float16", "float32 and float64"});
  expect_error(error_of([&] { (void)amax(h, {0}); }), {"amax", "float16"});
}

TEST(OpenCLRuntime, RoundTripsEveryDtype) {
  NABLA_SKIP_WITHOUT_OPENCL();
  for (DType t : {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64, kFloat16}) {
    Tensor x = remainder(arange(0, 37), 5).to(t);
    Tensor d = x.to(kCL);
    EXPECT_EQ(d.device(), kCL);
    EXPECT_EQ(d.dtype(), t);
    EXPECT_TRUE(equal(d.cpu(), x)) << t;
  }
}

TEST(OpenCLRuntime, DeviceTensorsExposeNoHostPointer) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor d = ones({3}).to(kCL);
  EXPECT_THROW(d.data_ptr<float>(), Error);
  EXPECT_EQ(d.select(0, 1).item<float>(), 1.0f);  // reading a value copies it to the host
}

TEST(OpenCLRuntime, StridedAndOffsetCopies) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = arange(0, 24, 1, TensorOptions(kFloat64)).reshape({4, 6});
  // A transposed host tensor goes up; views of a device tensor (an offset
  // into its buffer, strides) come back.
  Tensor d = x.t().to(kCL);
  EXPECT_TRUE(equal(d.cpu(), x.t().contiguous()));
  Tensor dev = x.to(kCL);
  EXPECT_TRUE(equal(dev.slice(0, 1, 3).cpu(), x.slice(0, 1, 3)));
  EXPECT_TRUE(equal(dev.select(1, 4).cpu(), x.select(1, 4)));
  EXPECT_TRUE(equal(dev.t().cpu(), x.t()));
  EXPECT_TRUE(equal(dev.slice(1, 1, 6, 2).t().cpu(), x.slice(1, 1, 6, 2).t()));
  // copy_ into a view of a device tensor, from the host and from the device.
  Tensor target = zeros({4, 6}, TensorOptions(kFloat64)).to(kCL);
  Tensor view = target.slice(0, 1, 3);
  view.copy_(full({2, 6}, 7.0, TensorOptions(kFloat64)));
  target.select(0, 3).copy_(dev.select(0, 0));
  Tensor want = zeros({4, 6}, TensorOptions(kFloat64));
  want.slice(0, 1, 3).fill_(7.0);
  want.select(0, 3).copy_(x.select(0, 0));
  EXPECT_TRUE(equal(target.cpu(), want));
}

TEST(OpenCLRuntime, BackendCopiesWithByteOffsetsInEveryDirection) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Backend& b = backend_for(kCL, "test");
  Allocator* a = b.allocator(0);
  void* buf1 = a->allocate(64);
  void* buf2 = a->allocate(64);
  std::vector<int32_t> host(16), back(16, -1);
  for (int i = 0; i < 16; ++i) host[static_cast<std::size_t>(i)] = i * 3;
  const Queue q{kCL, 0};
  b.copy({buf1, 0, kCL}, {host.data(), 0, kCPU}, 64, q, false, nullptr);              // host -> device
  b.copy({buf2, 8, kCL}, {buf1, 16, kCL}, 32, q, false, nullptr);                      // device -> device
  b.copy({back.data(), 4, kCPU}, {buf2, 8, kCL}, 32, q, false, nullptr);               // device -> host
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[static_cast<std::size_t>(1 + i)], host[static_cast<std::size_t>(4 + i)]) << i;
  EXPECT_EQ(back[0], -1);
  EXPECT_EQ(back[9], -1);
  a->deallocate(buf1, 64);
  a->deallocate(buf2, 64);
}

TEST(OpenCLRuntime, SteadyStateAsksTheDriverForNoNewMemory) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor w = ones({64, 32}).to(kCL);
  auto step = [&] {
    Tensor h = relu(w * 0.5 + 1.0);
    Tensor g = where(h > 1.0, h, zeros_like(h));
    return (g - h).cpu();
  };
  step();
  step();
  const int64_t before = opencl::memory_stats().driver_allocations;
  for (int i = 0; i < 20; ++i) step();
  EXPECT_EQ(opencl::memory_stats().driver_allocations, before);
  EXPECT_GT(opencl::memory_stats().bytes_reserved, 0);
}

TEST(OpenCLRuntime, EmptyCacheReturnsFreeBuffersToTheDriver) {
  NABLA_SKIP_WITHOUT_OPENCL();
  { Tensor t = ones({1000}).to(kCL); }
  const opencl::MemoryStats before = opencl::memory_stats();
  EXPECT_GT(before.bytes_reserved, before.bytes_in_use);
  opencl::empty_cache();
  const opencl::MemoryStats after = opencl::memory_stats();
  EXPECT_EQ(after.bytes_reserved, after.bytes_in_use);
  EXPECT_GT(after.driver_frees, before.driver_frees);
}

TEST(OpenCLRuntime, OutOfMemoryIsAClearErrorAfterEmptyingTheCache) {
  NABLA_SKIP_WITHOUT_OPENCL();
  int64_t total = 0;
  for (const DeviceInfo& d : devices())
    if (d.device == kCL) total = d.total_memory;
  Allocator* a = allocator_for(kCL);
  // Beyond the largest buffer the device allows.
  try {
    a->allocate(std::size_t{1} << 50);
    FAIL() << "expected an OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("opencl:0"), std::string::npos) << e.what();
  }
  // Cached buffers that together fill the device are released and the
  // allocation retried (buffers are not touched: no memory is committed).
  // A device's largest buffer is at least a quarter of its memory (OpenCL).
  const std::size_t chunk = static_cast<std::size_t>(total / 6);
  std::vector<void*> held;
  for (int i = 0; i < 5; ++i) held.push_back(a->allocate(chunk));
  for (void* p : held) a->deallocate(p, chunk);
  const opencl::MemoryStats before = opencl::memory_stats();
  void* big = a->allocate(chunk + chunk / 2);  // another size class: 5/6 + 1.5/6 of the device
  const opencl::MemoryStats after = opencl::memory_stats();
  EXPECT_EQ(after.failed_allocations, before.failed_allocations + 1);
  EXPECT_GE(after.driver_frees, before.driver_frees + 5);
  a->deallocate(big, chunk + chunk / 2);
  // What cannot fit even then is an OutOfMemoryError.
  std::vector<void*> fill;
  EXPECT_THROW(
      {
        for (int i = 0; i < 8; ++i) fill.push_back(a->allocate(chunk));
      },
      OutOfMemoryError);
  for (void* p : fill) a->deallocate(p, chunk);
  opencl::empty_cache();
}

TEST(OpenCLRuntime, QueuesAndEventsOrderWork) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Backend& b = backend_for(kCL, "test");
  const Queue copies = b.new_queue(0);
  EXPECT_NE(copies.id, 0);
  Tensor host = arange(0, 1000, 1, TensorOptions(kFloat32)).pin_memory();
  Tensor dev = empty({1000}, TensorOptions(kFloat32)).to(kCL);
  // Copy on the side queue, then make the default queue wait for it.
  b.copy({dev.impl()->storage->handle(), 0, kCL}, {host.impl()->storage->handle(), 0, kCPU}, 4000, copies, true,
         host.impl()->storage);
  Ref<Event> done = b.record(copies);
  b.wait(Queue{kCL, 0}, *done);
  Tensor out = (dev * 2.0).cpu();
  EXPECT_TRUE(done->query());
  EXPECT_TRUE(equal(out, arange(0, 1000, 1, TensorOptions(kFloat32)) * 2.0));
  done->synchronize();
  synchronize(kCL);
}

TEST(OpenCLRuntime, PinnedNonBlockingCopiesKeepTheirSourceAlive) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor expected = arange(0, 1 << 16, 1, TensorOptions(kFloat32)) * 0.25;
  Tensor d;
  {
    Tensor pinned = expected.pin_memory();
    EXPECT_TRUE(pinned.is_pinned());
    d = pinned.to(kCL, /*non_blocking=*/true);
  }  // the host side is gone from here: the copy holds it until done
  synchronize(kCL);
  EXPECT_TRUE(equal(d.cpu(), expected));
  // And back into pinned memory, without blocking.
  Tensor back = empty({1 << 16}, TensorOptions(kFloat32)).pin_memory();
  backend_for(kCL, "test").copy({back.impl()->storage->handle(), 0, kCPU}, {d.impl()->storage->handle(), 0, kCL},
                                4 << 16, Queue{kCL, 0}, true, back.impl()->storage);
  synchronize(kCL);
  EXPECT_TRUE(equal(back, expected));
}

}  // namespace
}  // namespace nabla::testing
