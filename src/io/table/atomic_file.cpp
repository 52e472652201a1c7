#include "kinetrack/io/table/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

void writeFileAtomically(const std::string& path, std::string_view text) {
  AtomicFile out(path);
  out.write(text);
  out.commit();
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_path_(path_ + ".part") {
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) throw ParseError(path_, 0, "cannot open '" + temp_path_ + "' for writing: " + std::strerror(errno));
  // Unbuffered: callers write whole texts or batches, and stdio would allocate its own buffer
  // lazily inside the first write() (JointCsvWriter::write must not allocate).
  std::setvbuf(file_, nullptr, _IONBF, 0);
}

AtomicFile::~AtomicFile() { discard(); }

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      file_(std::exchange(other.file_, nullptr)),
      committed_(other.committed_) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    file_ = std::exchange(other.file_, nullptr);
    committed_ = other.committed_;
  }
  return *this;
}

void AtomicFile::discard() noexcept {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(temp_path_.c_str());
}

void AtomicFile::write(std::string_view bytes) {
  if (!file_) throw InvalidArgument("AtomicFile::write: '" + path_ + "' is not open (committed, discarded or failed)");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw ParseError(path_, 0, "write error on '" + temp_path_ + "': " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (!file_) throw InvalidArgument("AtomicFile::commit: '" + path_ + "' is not open (committed, discarded or failed)");
  const bool flushed = std::fflush(file_) == 0;
  const int saved = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    const std::string reason = std::strerror(flushed ? errno : saved);
    std::remove(temp_path_.c_str());
    throw ParseError(path_, 0, "write error on '" + temp_path_ + "': " + reason);
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp_path_.c_str());
    throw ParseError(path_, 0, "cannot rename '" + temp_path_ + "' to the output file: " + reason);
  }
  committed_ = true;
}

}  // namespace kinetrack::io
