// The indenting writer every emitter writes through, so generated code is laid out one way.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace ein::codegen {

/// Accumulates lines of code with two-space indentation per open block.
/// Example: `w.open("for (int i = 0; i < n; ++i)"); w.line("x += i;"); w.close();` writes
/// `for (int i = 0; i < n; ++i) {\n  x += i;\n}\n`.
class writer {
 public:
  /// One line at the current indentation (an empty line has no trailing spaces).
  void line(std::string_view text = {}) {
    if (!text.empty()) out_.append(2 * depth_, ' ').append(text);
    out_ += '\n';
  }
  /// `head {` and one level deeper.
  void open(std::string_view head) {
    line(std::string(head) + (head.empty() ? "{" : " {"));
    ++depth_;
  }
  /// One level back and `}` followed by `tail` (e.g. `;` after a struct).
  void close(std::string_view tail = {}) {
    --depth_;
    line("}" + std::string(tail));
  }
  /// `namespace name {` without indenting its content (the usual layout of namespaces).
  void open_namespace(std::string_view name) { line("namespace " + std::string(name) + " {"); }
  void close_namespace(std::string_view name) { line("}  // namespace " + std::string(name)); }
  /// Several lines, each indented (a trailing newline does not add an empty line).
  void lines(std::string_view text) {
    while (!text.empty()) {
      auto nl = text.find('\n');
      line(text.substr(0, nl));
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
    }
  }
  /// `// text` lines, one per line of `text`.
  void comment(std::string_view text) {
    while (!text.empty()) {
      auto nl = text.find('\n');
      auto part = text.substr(0, nl);
      line(part.empty() ? std::string("//") : "// " + std::string(part));
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
    }
  }
  int depth() const { return depth_; }
  const std::string& str() const { return out_; }

  class nested;

 private:
  std::string out_;
  int depth_ = 0;
};

/// The blocks opened on a writer after this was made, closed together when it goes out of
/// scope: for a nest of loops whose depth is known only as it is written, so that no emitter
/// counts its closes by hand.
/// Example: `{ writer::nested loops(w); for (auto& v : vars) w.open("for (" + v + ")"); w.line("x += 1;"); }`
/// closes every loop it opened, innermost first. Left by an exception, it writes nothing: the
/// text is abandoned, and a destructor that appends could throw while another exception flies.
class writer::nested {
 public:
  explicit nested(writer& w) : w_(w), depth_(w.depth()), exceptions_(std::uncaught_exceptions()) {}
  nested(const nested&) = delete;
  nested& operator=(const nested&) = delete;
  ~nested() {
    if (std::uncaught_exceptions() > exceptions_) return;
    while (w_.depth() > depth_) w_.close();
  }

 private:
  writer& w_;
  int depth_;
  int exceptions_;
};

}  // namespace ein::codegen
