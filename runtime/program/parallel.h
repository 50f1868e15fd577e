// parallel.h - a loop over indices on a few threads, for loading and building kernels.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace spectral {

/// Calls body(i) for every i in [0, count) on up to `threads` threads (0:
/// the hardware's), this one included; returns when all calls have.
/// `body` must not throw.
inline void parallel_for(size_t count, int threads, const std::function<void(size_t)>& body) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < count; i = next++) body(i);
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < std::min(size_t(threads), count); ++w) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace spectral
