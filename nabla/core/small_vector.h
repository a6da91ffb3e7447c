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

// A read-only view of a list of ints, built from braces, vectors or Shapes.
class IntList {
 public:
  IntList() = default;
  // Like std::span, an IntList built from braces is valid only for the call it
  // is passed to; never store one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  IntList(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  IntList(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  template <std::size_t N>
  IntList(const SmallVector<int64_t, N>& v) : data_(v.data()), size_(v.size()) {}
  IntList(std::span<const int64_t> s) : data_(s.data()), size_(s.size()) {}
  IntList(const int64_t* d, std::size_t n) : data_(d), size_(n) {}
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](std::size_t i) const { return data_[i]; }
  Shape shape() const { return Shape(begin(), end()); }
  std::vector<int64_t> vec() const { return {begin(), end()}; }
 private:
  const int64_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace nabla
