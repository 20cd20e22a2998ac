// runtime::resource_owner and release_on_throw, what the runtime's owners of cuBLAS, cuDNN and
// CUDA resources build on: no copies, and a constructor that fails halfway releases what it got.
#include <doctest/doctest.h>

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "ein/runtime/resource_owner.hpp"

namespace resource_owner_test {

namespace {

// Acquires `count` resources, the one numbered `failing` (if any) throwing; records releases.
class owner : ein::runtime::resource_owner {
 public:
  owner(int count, int failing, std::vector<int>& released) : released_(released) {
    const ein::runtime::release_on_throw undo([this] { release(); });
    for (int i = 0; i < count; ++i) {
      if (i == failing) throw std::runtime_error("acquisition failed");
      ++held_;
    }
  }
  ~owner() { release(); }

 private:
  void release() noexcept {
    released_.push_back(held_);
    held_ = 0;
  }

  std::vector<int>& released_;
  int held_ = 0;
};

}  // namespace

static_assert(!std::is_copy_constructible_v<owner> && !std::is_copy_assignable_v<owner>);
static_assert(!std::is_move_constructible_v<owner> && !std::is_move_assignable_v<owner>);

TEST_CASE("release_on_throw: a constructor that fails releases what it acquired, once") {
  std::vector<int> released;
  CHECK_THROWS_AS(owner(3, 2, released), std::runtime_error);
  CHECK(released == std::vector<int>{2});
}

TEST_CASE("release_on_throw: a constructor that succeeds leaves the release to the destructor") {
  std::vector<int> released;
  {
    const owner o(3, -1, released);
    CHECK(released.empty());
  }
  CHECK(released == std::vector<int>{3});
}

TEST_CASE("release_on_throw: an exception already in flight is not taken for a failure") {
  std::vector<int> released;
  struct constructs_while_unwinding {
    std::vector<int>& released;
    ~constructs_while_unwinding() { const owner o(1, -1, released); }
  };
  try {
    const constructs_while_unwinding c{released};
    throw std::runtime_error("unwinding");
  } catch (const std::runtime_error&) {
  }
  CHECK(released == std::vector<int>{1});
}

}  // namespace resource_owner_test
