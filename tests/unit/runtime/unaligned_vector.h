// unaligned_vector.h - a FlatBuffers vector laid out as no builder writes it,
// for the tests of the readers that must refuse it (artifacts, checkpoints).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace spectral::testing {

/// A vector of T holding `words` (an even number of 32-bit words: the
/// elements' bytes), its data 4 past an 8-byte boundary of the finished
/// buffer when `shift`, on one when not. The builder writes backwards and
/// pads the finished buffer to its largest alignment (8, from here), so the
/// data's distance from the end decides: 8-aligned, then 4 bytes when `shift`,
/// then the words.
template <class T>
flatbuffers::Offset<flatbuffers::Vector<T>> unaligned_vector(flatbuffers::FlatBufferBuilder& b,
                                                             const std::vector<uint32_t>& words,
                                                             bool shift) {
  using Element = std::remove_cv_t<std::remove_pointer_t<T>>;
  b.PreAlign(8, 8);  // the size so far a multiple of 8, and the finished buffer's too
  if (shift) b.PushElement(uint32_t(0));
  b.StartVector(words.size(), sizeof(uint32_t));
  for (size_t i = words.size(); i-- > 0;) b.PushElement(words[i]);
  return flatbuffers::Offset<flatbuffers::Vector<T>>(
      b.EndVector(words.size() * sizeof(uint32_t) / sizeof(Element)));
}

}  // namespace spectral::testing
