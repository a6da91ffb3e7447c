// SmallVector: a vector that keeps up to N elements inline and only touches the
// heap beyond that. Shapes and strides (usually <= 6 dims) and op argument lists
// use it so that an eager op allocates nothing for its metadata.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace nabla {

template <class T, std::size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(std::size_t n, const T& value = T()) { assign(n, value); }
  SmallVector(std::initializer_list<T> init) { append(init.begin(), init.end()); }
  template <class It, class = decltype(*std::declval<It>())>
  SmallVector(It first, It last) { append(first, last); }
  SmallVector(std::span<const T> s) { append(s.begin(), s.end()); }
  SmallVector(const std::vector<T>& v) { append(v.begin(), v.end()); }
  SmallVector(const SmallVector& o) { append(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) { clear(); append(o.begin(), o.end()); }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) { destroy(); steal(std::move(o)); }
    return *this;
  }
  ~SmallVector() { destroy(); }

  T* data() { return ptr(); }
  const T* data() const { return ptr(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return ptr()[i]; }
  const T& operator[](std::size_t i) const { return ptr()[i]; }
  T& back() { return ptr()[size_ - 1]; }
  const T& back() const { return ptr()[size_ - 1]; }
  T& front() { return ptr()[0]; }
  const T& front() const { return ptr()[0]; }
  T* begin() { return ptr(); }
  T* end() { return ptr() + size_; }
  const T* begin() const { return ptr(); }
  const T* end() const { return ptr() + size_; }

  operator std::span<const T>() const { return {ptr(), size_}; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) grow(cap_ * 2);
    T* p = new (ptr() + size_) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }
  void pop_back() { ptr()[--size_].~T(); }
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) ptr()[i].~T();
    size_ = 0;
  }
  void resize(std::size_t n, const T& value = T()) {
    if (n < size_) {
      for (std::size_t i = n; i < size_; ++i) ptr()[i].~T();
      size_ = n;
      return;
    }
    reserve(n);
    while (size_ < n) new (ptr() + size_++) T(value);
  }
  void assign(std::size_t n, const T& value) { clear(); resize(n, value); }
  void reserve(std::size_t n) { if (n > cap_) grow(n); }
  template <class It>
  void append(It first, It last) {
    reserve(size_ + static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) new (ptr() + size_++) T(*first);
  }
  void insert(const T* pos, const T& v) {
    std::size_t i = static_cast<std::size_t>(pos - ptr());
    emplace_back(v);
    std::rotate(ptr() + i, ptr() + size_ - 1, ptr() + size_);
  }
  void erase(const T* pos) {
    std::size_t i = static_cast<std::size_t>(pos - ptr());
    std::rotate(ptr() + i, ptr() + i + 1, ptr() + size_);
    pop_back();
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  T* ptr() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* ptr() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  void grow(std::size_t n) {
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T)));
    for (std::size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(ptr()[i]));
      ptr()[i].~T();
    }
    if (heap_) ::operator delete(heap_);
    heap_ = fresh;
    cap_ = n;
  }
  void destroy() {
    clear();
    if (heap_) ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = N;
  }
  void steal(SmallVector&& o) {
    if (o.heap_) {
      heap_ = o.heap_; size_ = o.size_; cap_ = o.cap_;
      o.heap_ = nullptr; o.size_ = 0; o.cap_ = N;
    } else {
      for (std::size_t i = 0; i < o.size_; ++i) new (ptr() + i) T(std::move(o.ptr()[i]));
      size_ = o.size_;
      o.clear();
    }
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* heap_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

// Shape and strides: dims up to 6 live inline.
using Shape = SmallVector<int64_t, 6>;

// A read-only list of ints, built from braces, vectors, spans, Shapes or a
// pointer and a count: the type of every dims/shape/stride argument.
//
// It owns a copy of its values (up to kInline inline, on the heap beyond), so
// it is safe to store: `IntList d = {1};` or `IntList s = std::vector<int64_t>{2, 3};`
// kept for later stays valid. We chose owning over rejecting temporaries at
// compile time because the two cannot be told apart: `x.sum({0, 1})` and
// `IntList d = {0, 1};` both bind a temporary initializer_list, and only the
// second outlives it. Copying a handful of int64s costs a few nanoseconds
// against an op's ~100 ns of dispatch (bench/nabla_ops_bench, intlist/*), and
// shapes beyond kInline dims (the only case that allocates) are rare.
class IntList {
 public:
  static constexpr std::size_t kInline = 8;

  IntList() = default;
  IntList(std::initializer_list<int64_t> l) { assign(l.begin(), l.size()); }
  // One value is a list of one, as in libtorch's IntArrayRef: x.sum(1),
  // x.view(-1), zeros(5) read as in PyTorch.
  IntList(int64_t one) { assign(&one, 1); }
  IntList(const std::vector<int64_t>& v) { assign(v.data(), v.size()); }
  template <std::size_t N>
  IntList(const SmallVector<int64_t, N>& v) { assign(v.data(), v.size()); }
  IntList(std::span<const int64_t> s) { assign(s.data(), s.size()); }
  IntList(const int64_t* d, std::size_t n) { assign(d, n); }
  IntList(const IntList& o) { assign(o.data(), o.size_); }
  IntList(IntList&& o) noexcept { steal(o); }
  IntList& operator=(const IntList& o) {
    if (this != &o) { release(); assign(o.data(), o.size_); }
    return *this;
  }
  IntList& operator=(IntList&& o) noexcept {
    if (this != &o) { release(); steal(o); }
    return *this;
  }
  ~IntList() { release(); }

  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](std::size_t i) const { return data()[i]; }
  Shape shape() const { return Shape(begin(), end()); }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

 private:
  void assign(const int64_t* d, std::size_t n) {
    int64_t* dst = inline_;
    if (n > kInline) dst = heap_ = new int64_t[n];
    if (n) std::copy(d, d + n, dst);
    size_ = n;
  }
  void steal(IntList& o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      o.heap_ = nullptr;
    } else {
      std::copy(o.inline_, o.inline_ + size_, inline_);
    }
    o.size_ = 0;
  }
  void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
    size_ = 0;
  }

  int64_t inline_[kInline];  // left uninitialized: only [0, size_) is ever read
  int64_t* heap_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace nabla
