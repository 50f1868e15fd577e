// npy.cc - NumPy .npy reader and writer; see npy.h.
//
// Format: numpy.lib.format (NEP 1). The header is a Python dict literal; we
// parse the subset numpy writes for plain dtypes. Every length in a header is
// checked against the file size before anything is allocated, so a corrupt
// file cannot make us allocate a huge buffer. The writer emits the same bytes
// as np.save (checked against numpy 2.4, including its growth padding).
#include "runtime/tensor/npy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cc assumes a little-endian host"
#endif

namespace spectral {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;                // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // np.save leaves room for shape[0] to grow

struct DtypeInfo {
  NpyDtype dtype;
  int size;
  const char* name;
  const char* descr;  // as numpy writes it
};

constexpr DtypeInfo kDtypes[] = {
    {NpyDtype::kFloat32, 4, "float32", "<f4"},      {NpyDtype::kFloat64, 8, "float64", "<f8"},
    {NpyDtype::kInt32, 4, "int32", "<i4"},          {NpyDtype::kInt64, 8, "int64", "<i8"},
    {NpyDtype::kComplex64, 8, "complex64", "<c8"},  {NpyDtype::kComplex128, 16, "complex128", "<c16"},
    {NpyDtype::kBool, 1, "bool", "|b1"},
};

const DtypeInfo* find_dtype(NpyDtype dtype) {
  for (const DtypeInfo& info : kDtypes)
    if (info.dtype == dtype) return &info;
  return nullptr;
}

/// Maps a descr such as "<f4" to a dtype. '<', '=' and '|' are accepted as
/// little-endian; '>' only for the one-byte bool, where order is meaningless.
bool parse_descr(const std::string& descr, NpyDtype* dtype, std::string* why) {
  for (const DtypeInfo& info : kDtypes) {
    if (descr.empty() || descr.compare(1, std::string::npos, info.descr + 1) != 0) continue;
    if (descr[0] == '>' && info.size > 1) {
      *why = "big-endian dtype '" + descr + "' is not supported; save it with "
             "arr.astype(arr.dtype.newbyteorder('<'))";
      return false;
    }
    if (descr[0] && std::strchr("<=|>", descr[0])) {
      *dtype = info.dtype;
      return true;
    }
  }
  *why = "unsupported dtype '" + descr + "' (supported: <f4 <f8 <i4 <i8 <c8 <c16 |b1)";
  return false;
}

/// Product of `shape` and `elem_size`; false on a negative dim or int64 overflow.
bool checked_byte_count(const std::vector<int64_t>& shape, int64_t elem_size, int64_t* bytes) {
  *bytes = elem_size;
  for (int64_t d : shape)
    if (d <= 0) {
      *bytes = 0;
      if (d < 0) return false;
    }
  if (*bytes == 0) return true;
  for (int64_t d : shape) {
    if (*bytes > std::numeric_limits<int64_t>::max() / d) return false;
    *bytes *= d;
  }
  return true;
}

/// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)".
std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// Parses the header dict, e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
/// Keys may come in any order, with either quote style and any whitespace.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}
  const std::string& error() const { return error_; }

  bool parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    static const char* const kKeys[3] = {"descr", "fortran_order", "shape"};
    bool seen[3] = {false, false, false};
    if (!eat('{')) return fail("header is not a dict (expected '{')");
    while (!eat('}')) {
      std::string key;
      if (!parse_string(&key)) return fail("expected a quoted key in the header dict");
      if (!eat(':')) return fail("expected ':' after '" + key + "'");
      int index = 0;
      while (index < 3 && key != kKeys[index]) ++index;
      if (index == 3) return fail("unexpected key '" + key + "' in the header");
      if (seen[index]) return fail("duplicate key '" + key + "' in the header");
      seen[index] = true;
      if (index == 0 && peek() == '[') {
        error_ = "structured dtypes are not supported";
        return false;
      }
      if (index == 0 && !parse_string(descr)) return fail("'descr' is not a string");
      if (index == 1 && !parse_bool(fortran)) return fail("'fortran_order' is not True or False");
      if (index == 2 && !parse_shape(shape)) return false;
      if (!eat(',') && peek() != '}') return fail("expected ',' or '}' after '" + key + "'");
    }
    if (pos_ != s_.size()) return fail("unexpected text after the header dict");
    for (int i = 0; i < 3; ++i)
      if (!seen[i]) return fail(std::string("header has no '") + kKeys[i] + "'");
    return true;
  }

 private:
  void skip_ws() {
    while (pos_ < s_.size() && s_[pos_] && std::strchr(" \t\r\n", s_[pos_])) ++pos_;
  }
  char peek() {
    skip_ws();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  /// Consumes `token` (after whitespace) if it comes next; skips whitespace after it.
  bool eat(const char* token) {
    skip_ws();
    if (s_.compare(pos_, std::strlen(token), token) != 0) return false;
    pos_ += std::strlen(token);
    skip_ws();
    return true;
  }
  bool eat(char c) { return eat(std::string(1, c).c_str()); }
  bool fail(const std::string& why) {
    error_ = "malformed header: " + why;
    return false;
  }

  bool parse_string(std::string* out) {
    char quote = peek();
    size_t end = quote == '\'' || quote == '"' ? s_.find(quote, pos_ + 1) : std::string::npos;
    if (end == std::string::npos) return false;
    *out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return true;
  }

  bool parse_bool(bool* out) {
    *out = eat("True");
    return *out || eat("False");
  }

  /// A tuple of non-negative ints: "()", "(3,)", "(2, 3)"; also "(3)" and Python 2's "3L".
  bool parse_shape(std::vector<int64_t>* shape) {
    shape->clear();
    if (!eat('(')) return fail("'shape' is not a tuple");
    while (!eat(')')) {
      if (peek() == '-') return fail("'shape' has a negative dimension");
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        return fail("'shape' is not a tuple of integers");
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        int digit = s_[pos_++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return fail("'shape' has a dimension that overflows int64");
        v = v * 10 + digit;
      }
      eat('L');
      shape->push_back(v);
      if (!eat(',') && peek() != ')') return fail("'shape' is not a tuple of integers");
    }
    return true;
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

using File = std::unique_ptr<FILE, int (*)(FILE*)>;

bool fail(std::string* error, const std::string& path, const std::string& what) {
  if (error) *error = path + ": " + what;
  return false;
}

}  // namespace

const char* npy_dtype_name(NpyDtype dtype) {
  const DtypeInfo* info = find_dtype(dtype);
  return info ? info->name : "unknown";
}

int npy_dtype_size(NpyDtype dtype) {
  const DtypeInfo* info = find_dtype(dtype);
  return info ? info->size : 0;
}

NpyDtype npy_dtype_of(DType dtype) {
  switch (dtype) {
    case DType::kBool: return NpyDtype::kBool;
    case DType::kInt32: return NpyDtype::kInt32;
    case DType::kInt64: return NpyDtype::kInt64;
    case DType::kFloat32: return NpyDtype::kFloat32;
    case DType::kFloat64: return NpyDtype::kFloat64;
    case DType::kComplex64: return NpyDtype::kComplex64;
    case DType::kComplex128: return NpyDtype::kComplex128;
  }
  return NpyDtype::kFloat32;
}

DType dtype_of_npy(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kBool: return DType::kBool;
    case NpyDtype::kInt32: return DType::kInt32;
    case NpyDtype::kInt64: return DType::kInt64;
    case NpyDtype::kFloat32: return DType::kFloat32;
    case NpyDtype::kFloat64: return DType::kFloat64;
    case NpyDtype::kComplex64: return DType::kComplex64;
    case NpyDtype::kComplex128: return DType::kComplex128;
  }
  return DType::kFloat32;
}

int64_t NpyArray::element_count() const {
  int64_t n = 0;
  return checked_byte_count(shape, 1, &n) ? n : -1;
}

bool read_npy(const std::string& path, NpyArray* out, std::string* error) {
  return read_npy(path, out, error, nullptr);
}

bool read_npy(const std::string& path, NpyArray* out, std::string* error, const NpyAccept& accept) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return fail(error, path, std::strerror(errno));
  struct stat st;
  if (::fstat(fileno(file.get()), &st) != 0) return fail(error, path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(error, path, "not a regular file");
  const int64_t file_size = st.st_size;

  unsigned char pre[12];
  size_t got = std::fread(pre, 1, 8, file.get());
  if (got < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0)
    return fail(error, path, "not a .npy file (missing the \\x93NUMPY magic string)");
  if (got < 8) return fail(error, path, "truncated header (the file ends inside the preamble)");
  if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
    return fail(error, path, "unsupported .npy format version " + std::to_string(pre[6]) + "." +
                                 std::to_string(pre[7]) + " (supported: 1.0, 2.0, 3.0)");
  const size_t len_bytes = pre[6] == 1 ? 2 : 4;  // 2.0 and 3.0 have a 4-byte header length
  if (std::fread(pre + 8, 1, len_bytes, file.get()) != len_bytes)
    return fail(error, path, "truncated header (the file ends inside the preamble)");
  uint32_t header_len = 0;
  for (size_t i = len_bytes; i-- > 0;) header_len = header_len << 8 | pre[8 + i];
  const int64_t preamble = 8 + static_cast<int64_t>(len_bytes);
  if (preamble + header_len > file_size)
    return fail(error, path, "truncated header: its length field says " +
                                 std::to_string(header_len) + " bytes, the file has " +
                                 std::to_string(file_size - preamble) + " after the preamble");

  std::string header(header_len, '\0');
  if (std::fread(&header[0], 1, header_len, file.get()) != header_len)
    return fail(error, path, "could not read the header");
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser parser(header);
  if (!parser.parse(&descr, &fortran, &shape)) return fail(error, path, parser.error());
  NpyDtype dtype;
  std::string why;
  if (!parse_descr(descr, &dtype, &why)) return fail(error, path, why);
  if (fortran)
    return fail(error, path, "Fortran-order arrays are not supported; save it with "
                             "np.save(path, np.ascontiguousarray(arr))");

  if (accept) {
    std::string refused;
    if (!accept(dtype, shape, &refused)) {
      if (error) *error = refused;
      return false;
    }
  }
  const std::string what = "shape " + shape_repr(shape) + " " + npy_dtype_name(dtype);
  int64_t expected = 0;
  if (!checked_byte_count(shape, npy_dtype_size(dtype), &expected))
    return fail(error, path, what + " is too large (its byte count overflows int64)");
  const int64_t actual = file_size - preamble - header_len;
  if (actual != expected)
    return fail(error, path, std::string(actual < expected ? "truncated data: " :
                                                              "unexpected trailing data: ") +
                                 what + " needs " + std::to_string(expected) +
                                 " bytes, the file has " + std::to_string(actual));

  std::vector<uint8_t> bytes(static_cast<size_t>(expected));
  if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
    return fail(error, path, "could not read the data (did the file change while reading?)");
  out->dtype = dtype;
  out->shape = std::move(shape);
  out->bytes = std::move(bytes);
  return true;
}

namespace {

/// Writes header and data straight into an existing non-regular file.
bool write_through(const std::string& path, const std::string& header,
                   const std::vector<uint8_t>& bytes, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return fail(error, path, std::string("cannot open for writing: ") + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  int saved = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  return ok || fail(error, path, std::string("cannot write: ") + std::strerror(saved));
}

}  // namespace

bool write_npy(const std::string& path, const NpyArray& array, std::string* error) {
  const DtypeInfo* info = find_dtype(array.dtype);
  if (!info) return fail(error, path, "invalid dtype");
  int64_t expected = 0;
  if (!checked_byte_count(array.shape, info->size, &expected))
    return fail(error, path, "invalid shape " + shape_repr(array.shape));
  if (static_cast<int64_t>(array.bytes.size()) != expected)
    return fail(error, path, "shape " + shape_repr(array.shape) + " " + info->name + " needs " +
                                 std::to_string(expected) + " bytes, the array has " +
                                 std::to_string(array.bytes.size()));

  // As numpy's _write_array_header: sorted keys, growth padding, then spaces
  // and '\n' so that the data starts at a multiple of 64 (always >= 1 space).
  std::string dict = std::string("{'descr': '") + info->descr +
                     "', 'fortran_order': False, 'shape': " + shape_repr(array.shape) + ", }";
  if (!array.shape.empty())
    dict.append(kGrowthAxisMaxDigits - std::to_string(array.shape[0]).size(), ' ');
  size_t len_bytes = 2, header_len = 0;
  for (; len_bytes <= 4; len_bytes += 2) {  // version 1.0, else 2.0
    header_len = dict.size() + 1 + kAlign - (8 + len_bytes + dict.size() + 1) % kAlign;
    if (header_len <= 0xFFFF || len_bytes == 4) break;
  }
  std::string header(kMagic, kMagicLen);
  header += static_cast<char>(len_bytes == 2 ? 1 : 2);
  header += '\0';
  for (size_t i = 0; i < len_bytes; ++i) header += static_cast<char>(header_len >> (8 * i));
  header += dict;
  header.append(header_len - dict.size() - 1, ' ');
  header += '\n';

  // A device, fifo or socket (e.g. /dev/stdout) is written through, not
  // replaced; a symlink is followed so the link stays and its target changes.
  struct stat st;
  std::string target = path;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return write_through(path, header, array.bytes, error);
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                         &std::free);
    if (resolved) target = resolved.get();
  }
  const std::string tmp = target + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return fail(error, path, "cannot create temporary file " + tmp + ": " + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (array.bytes.empty() ||
             std::fwrite(array.bytes.data(), 1, array.bytes.size(), f) == array.bytes.size()) &&
            std::fflush(f) == 0;
  int saved = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(error, path, "cannot write " + tmp + ": " + std::strerror(saved));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    saved = errno;
    ::unlink(tmp.c_str());
    return fail(error, path, "cannot rename " + tmp + " into place: " + std::strerror(saved));
  }
  return true;
}

}  // namespace spectral
