#pragma once
// Atomic file output: every writer of kinetrack writes "<path>.part" beside the target and
// renames it to `path` only once it is complete, so `path` is either the old file (or absent)
// or the complete new one, never a partial file.
//
//   io::writeFileAtomically("walk.mot", text);  // whole text at once
//
//   io::AtomicFile out("walk_q.csv");            // streaming
//   out.write(header);
//   for (…) out.write(row);
//   out.commit();                                // destroying `out` before this removes the .part
#include <cstdio>
#include <string>
#include <string_view>

namespace kinetrack::io {

/// Writes `text` to "<path>.part" and renames it to `path` (replacing an existing file). On any
/// failure the temporary file is removed and `path` is left as it was. Throws
/// ParseError(path, 0, reason) naming `path` (and the temporary file in the reason): "cannot
/// open '<path>.part' for writing: …" when it cannot be created (e.g. a missing directory),
/// "write error on '<path>.part': …" or "cannot rename '<path>.part' to the output file: …".
void writeFileAtomically(const std::string& path, std::string_view text);

/// A file written through a temporary "<path>.part" beside it: opened by the constructor,
/// appended to by write(), renamed to `path` by commit(). Destroying it (or discard()) before a
/// successful commit() removes the temporary file. The stream is unbuffered, so write() never
/// allocates: callers batch their output (JointCsvWriter writes ~1 MiB blocks). Movable, not
/// copyable; a default-constructed or moved-from AtomicFile is closed.
class AtomicFile {
 public:
  AtomicFile() = default;
  /// Creates (truncates) "<path>.part". Throws ParseError(path, 0, "cannot open '<path>.part'
  /// for writing: <reason>") when it cannot be created.
  explicit AtomicFile(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `bytes` to the temporary file. Throws ParseError(path, 0, "write error on
  /// '<path>.part': <reason>") on a write error (the file stays open: the destructor or
  /// discard() removes it) and InvalidArgument when the file is not open (closed, committed
  /// or discarded).
  void write(std::string_view bytes);
  /// Flushes and closes the temporary file and renames it to `path`, replacing an existing file.
  /// Throws ParseError(path, 0, …) on a close or rename error, after removing the temporary
  /// file, and InvalidArgument when the file is not open.
  void commit();
  /// Closes and removes the temporary file unless committed; the file is closed afterwards.
  void discard() noexcept;

  /// True between a successful construction and commit() or discard().
  [[nodiscard]] bool isOpen() const { return file_ != nullptr; }
  /// True once commit() renamed the temporary file to path().
  [[nodiscard]] bool committed() const { return committed_; }
  /// The target path.
  [[nodiscard]] const std::string& path() const { return path_; }
  /// The temporary path, path() + ".part".
  [[nodiscard]] const std::string& tempPath() const { return temp_path_; }

 private:
  std::string path_, temp_path_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace kinetrack::io
