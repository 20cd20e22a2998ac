// Error types: user_error for bad input (says what and where), internal_error for bugs of ein.
#pragma once

#include <stdexcept>
#include <string>

namespace ein {

/// A malformed model, a bad file, a search over budget: the message names the tensor, iterator
/// or file involved so that the user can fix the input.
class user_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A broken invariant inside ein. User input must never reach one of these.
class internal_error : public std::logic_error {
 public:
  explicit internal_error(const std::string& what)
      : std::logic_error("ein internal error (please report): " + what) {}
};

}  // namespace ein
