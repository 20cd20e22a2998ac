// Compile-time building blocks of the front end: fixed strings, type lists, FNV-1a hashing.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace ein::front {

/// A string usable as a template argument, so that names live in types: `var<"h">`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: converts from string literals
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  static constexpr std::size_t size() { return N - 1; }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

/// `Name` followed by `Suffix`, as a name: how an operator names the definitions it writes on the
/// way to `Name`, and how a model names a layer's weights after the layer.
///
///     static constexpr ein::weight<ein::front::suffixed<Layer, "_k">(), float, 3, 3, 64, 64> k{};
template <fixed_string Name, fixed_string Suffix>
constexpr auto suffixed() {
  fixed_string<Name.size() + Suffix.size() + 1> s;
  for (std::size_t i = 0; i < Name.size(); ++i) s.chars[i] = Name.chars[i];
  for (std::size_t i = 0; i < Suffix.size(); ++i) s.chars[Name.size() + i] = Suffix.chars[i];
  return s;
}

namespace detail {

template <class...>
inline constexpr bool always_false = false;

/// A list of types; the front end's only compile-time container.
template <class... T>
struct types {
  static constexpr std::size_t size = sizeof...(T);
};

template <class... L>
struct concat_impl {
  using type = types<>;
};
template <class... A>
struct concat_impl<types<A...>> {
  using type = types<A...>;
};
template <class... A, class... B, class... Rest>
struct concat_impl<types<A...>, types<B...>, Rest...> {
  using type = typename concat_impl<types<A..., B...>, Rest...>::type;
};
template <class... L>
using concat = typename concat_impl<L...>::type;

template <class T, class L>
inline constexpr bool contains = false;
template <class T, class... U>
inline constexpr bool contains<T, types<U...>> = (std::is_same_v<T, U> || ...);

template <class L, class T>
struct push_unique_impl;
template <class... U, class T>
struct push_unique_impl<types<U...>, T> {
  using type = std::conditional_t<contains<T, types<U...>>, types<U...>, types<U..., T>>;
};
template <class L, class T>
using push_unique = typename push_unique_impl<L, T>::type;

/// The list without repeats, first occurrences kept in order.
template <class Acc, class L>
struct unique_impl {
  using type = Acc;
};
template <class Acc, class T, class... Rest>
struct unique_impl<Acc, types<T, Rest...>> {
  using type = typename unique_impl<push_unique<Acc, T>, types<Rest...>>::type;
};
template <class L>
using unique = typename unique_impl<types<>, L>::type;

/// Position of T in L (L's size when absent).
template <class T, class L>
struct index_of;
template <class T, class... U>
struct index_of<T, types<U...>> {
  static constexpr std::size_t value = [] {
    constexpr bool same[] = {std::is_same_v<T, U>..., true};
    std::size_t i = 0;
    while (!same[i]) ++i;
    return i;
  }();
};

template <std::size_t I, class L>
struct type_at_impl;
template <class T, class... Rest>
struct type_at_impl<0, types<T, Rest...>> {
  using type = T;
};
template <std::size_t I, class T, class... Rest>
struct type_at_impl<I, types<T, Rest...>> : type_at_impl<I - 1, types<Rest...>> {};
template <std::size_t I, class L>
using type_at = typename type_at_impl<I, L>::type;

/// The first element of L for which Pred<element>::value is true, or void.
template <template <class> class Pred, class L>
struct find_if_impl {
  using type = void;
};
template <template <class> class Pred, class T, class... Rest>
struct find_if_impl<Pred, types<T, Rest...>> {
  using type = std::conditional_t<Pred<T>::value, T,
                                  typename find_if_impl<Pred, types<Rest...>>::type>;
};
template <template <class> class Pred, class L>
using find_if = typename find_if_impl<Pred, L>::type;

/// 64-bit FNV-1a over a byte stream, in integer arithmetic only so that every compiler (nvcc
/// included) evaluates it in constant expressions and gets the same value.
struct fnv1a {
  std::uint64_t state = 14695981039346656037ULL;

  constexpr void byte(std::uint8_t b) {
    state ^= b;
    state *= 1099511628211ULL;
  }
  constexpr void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  constexpr void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  constexpr void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  /// Length first, so that consecutive strings cannot run into each other.
  constexpr void str(std::string_view s) {
    u64(s.size());
    for (char c : s) byte(static_cast<std::uint8_t>(c));
  }
};

}  // namespace detail
}  // namespace ein::front
