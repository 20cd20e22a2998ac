// What the runtime's owners of library resources (handles, descriptors, device memory, streams)
// share: they are not copied, and a constructor that acquires several resources releases those it
// has when a later one fails.
#pragma once

#include <exception>
#include <utility>

namespace ein::runtime {

/// A base of the classes that own a library's resources and release them in their destructor:
/// a copy would release them twice, so there is none (and, the copy declared, no move either).
class resource_owner {
 public:
  resource_owner(const resource_owner&) = delete;
  resource_owner& operator=(const resource_owner&) = delete;

 protected:
  resource_owner() = default;
  ~resource_owner() = default;
};

/// Runs `release` when it is destroyed by an exception's unwinding, never on a normal exit (the
/// Library Fundamentals TS's scope_fail). A constructor that throws runs no destructor, so one
/// that acquires several resources starts with
///
///     const release_on_throw undo([this] { release(); });
///
/// and what it acquired before a failure is released as the destructor would. `release` must not
/// throw.
template <class Release>
class release_on_throw {
 public:
  explicit release_on_throw(Release release) : release_(std::move(release)), exceptions_(std::uncaught_exceptions()) {}
  release_on_throw(const release_on_throw&) = delete;
  release_on_throw& operator=(const release_on_throw&) = delete;
  ~release_on_throw() {
    if (std::uncaught_exceptions() > exceptions_) release_();
  }

 private:
  Release release_;
  int exceptions_;
};

}  // namespace ein::runtime
